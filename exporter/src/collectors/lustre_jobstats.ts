// Collector `lustre_jobstats`: per-job I/O of the Lustre server targets on this host (MDTs and
// OSTs), from job_stats, as exact exporter-owned counters with bounded cardinality (docs/architecture.md "Bounded cardinality" and "Lustre: counters the exporter owns").
// Admin guide: docs/lustre.md. Metrics: docs/metrics.md.
import { dirname } from 'node:path';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, valueFlag } from '../scrape/flags.js';
import { newSeriesGraceFlag } from '../lustre/new-series-grace.js';
import { compileJobIdFormats } from '../lustre/jobid-format.js';
import { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import { lctlFlags } from '../lustre/lctl-flags.js';
import { DEFAULT_DENSITY_WINDOW_MS } from '../lustre/rate-density.js';
import { DEFAULT_MAX_TARGETS } from '../lustre/stats-settings.js';
import { findJobStatsFiles, readJobStatsFile, type ChunkBuffers, type JobStatsFile, type WholeRead } from '../lustre/jobstats-files.js';
import { readSmallFiles } from '../util/small-files-worker.js';
import { LCTL_ARGS, runLctl } from '../sources/lustre-lctl.js';
import { lustreSource } from '../lustre/source-description.js';
import { readErrorReason } from '../lustre/error-reasons.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { forEachLimited } from '../util/for-each-limited.js';
import { failUnlisted, updateLustre, type UpdateSteps } from '../lustre/update.js';
import { LustreJobStatsMetrics } from './lustre_jobstats_metrics.js';
import { linesAddonError } from '../parsers/jobstats-lines-addon.js';

/**
 * Files read at once, and the chunk each is read in: two chunks a lane, one parsed while the next is
 * read (memory: READ_LANES × 2 × CHUNK_BYTES = 8 MiB). Reading 256 KiB chunks one after the other,
 * the main thread sat idle, waiting for reads, 17 % of the time of 12 scrapes of a 20,000-entry 2.14
 * file (CPU profile); with these, 1–2 %.
 */
const READ_LANES = 4;
const CHUNK_BYTES = 1024 * 1024;
/**
 * A job_stats file up to this size is read whole on the small-files worker (a target with a few dozen
 * entries): for those the file calls through the thread pool cost more than the parse.
 */
const MAX_WHOLE_BYTES = 64 * 1024;

function validFormats(text: string): string {
  compileJobIdFormats(text);
  return text;
}

export const lustreJobStatsCollector = defineCollector({
  name: 'lustre_jobstats',
  help: 'Per-job I/O of the Lustre MDTs and OSTs on this host, from job_stats (quiet where there are none).',
  defaultEnabled: true,
  flags: {
    jobidFormat: valueFlag(
      'jobid-format',
      '%j:%u:%H,%e.%u',
      'Lustre jobid_name formats of the entry ids, comma-separated, tried in order (%j job, %u uid, %g gid, %e executable, %h FQDN, %H short host, %p pid).',
      validFormats,
    ),
    maxJobs: positiveIntegerFlag('max-jobs', 100, 'Jobs with their own series per target; the increments of the others go to jobid="_other".'),
    expiryMs: durationFlag('expiry', '30m', "A job series without any increment for this long is removed (longer than the servers' job_cleanup_interval)."),
    // A big OSS has tens of targets; 10,000 took 12 s a scrape.
    maxTargets: positiveIntegerFlag(
      'max-targets',
      DEFAULT_MAX_TARGETS,
      'Targets read per scrape (the first in name order, then sticky while they have series); further targets are not read (counted in jobio_lustre_jobstats_targets_dropped).',
    ),
    // About 110,000 entries of a 2.14+ OST (2.3 KB each): a scrape of ~2 s on a small server.
    maxFileBytes: positiveIntegerFlag(
      'max-file-bytes',
      256 * 1024 * 1024,
      'Bytes read of one job_stats file per scrape; the rest is not read this scrape (counted in jobio_lustre_jobstats_truncated_reads_total).',
    ),
    // ~0.5 KB each: 100 MB at most.
    maxEntries: positiveIntegerFlag('max-entries', 200_000, 'job_stats entries remembered per target; new entries beyond it are dropped (counted in jobio_lustre_jobstats_dropped_entries_total).'),
    // The shipped scrape interval: one window a scrape, the same density for every scraper.
    densityWindowMs: durationFlag(
      'density-window',
      `${DEFAULT_DENSITY_WINDOW_MS / 1000}s`,
      "The rate density's window on the exporter's clock: windows end at multiples of it, and every scraper reads the density of the last one ended (set it to the scrape interval or a multiple).",
    ),
    newSeriesGraceMs: newSeriesGraceFlag('job'),
    // Four 280,000-entry targets held 1.08 GB under the per-target cap alone.
    maxTotalEntries: positiveIntegerFlag(
      'max-total-entries',
      500_000,
      'job_stats entries remembered by all targets together (each target may always hold half of it divided by max-targets); new entries beyond it are dropped (counted in jobio_lustre_jobstats_dropped_entries_total) and logged.',
    ),
    targetTimeoutMs: durationFlag(
      'target-timeout',
      '4s',
      'Time one target\'s job_stats is read for per scrape; the rest is not read this scrape (counted in jobio_lustre_jobstats_truncated_reads_total{reason="timeout"}), so one huge target cannot take the others\' series with it.',
    ),
    readTimeoutMs: durationFlag(
      'read-timeout',
      '8s',
      'Time all targets are read for per scrape (keep it below --scrape.timeout): targets not reached by then are not read this scrape and keep their series (counted as timeout).',
    ),
    ...lctlFlags('lustre_jobstats', 'job_stats'),
    ...USER_FLAGS,
  },
  create({ registry, paths, settings, logger }) {
    const scanError = linesAddonError();
    // Said once: the scan gives the same result without the addon, at several times the CPU.
    if (scanError) logger.warn({ err: scanError.message }, 'job_stats lines addon not loaded: job_stats files are scanned in JavaScript only (same result, slower)');
    const acc = new JobStatsAccumulator({
      maxJobs: settings.maxJobs,
      expiryMs: settings.expiryMs,
      formats: compileJobIdFormats(settings.jobidFormat),
      maxEntries: settings.maxEntries,
      maxTargets: settings.maxTargets,
      densityWindowMs: settings.densityWindowMs,
      newSeriesGraceMs: settings.newSeriesGraceMs,
      maxTotalEntries: settings.maxTotalEntries,
      systemUidMax: settings.systemUidMax,
    });
    const metrics = new LustreJobStatsMetrics(registry, settings.maxJobs, settings.maxTargets);
    let droppedTargetsLogged = 0;
    let budgetDroppedLogged = 0;
    /** Out-of-range entries already logged, per target still known. */
    let outOfRangeLogged = new Map<string, number>();
    const users = userResolverFor(paths, settings);
    const buffers: ChunkBuffers[] = [];
    /** The job_stats files read last scrape (not gone), by target directory: those are not listed again. */
    let known = new Map<string, JobStatsFile>();
    /** job_stats files bigger than MAX_WHOLE_BYTES at their last read: streamed at once. */
    const streamed = new Set<string>();

    const steps: UpdateSteps = {
      begin: () => acc.begin(),
      async read(signal) {
        if (settings.lctl) {
          const result = await runLctl(settings.lctlPath, settings.lctlTimeoutMs, signal);
          if (!result.absent) acc.ingest(result.stdout);
          return { found: !result.absent, complete: true };
        }
        const { files: present, unlisted } = await findJobStatsFiles(paths, known);
        known = new Map(present.map((file) => [dirname(file.path), file]));
        let gone = 0;
        acc.unreadableDirsTotal += unlisted.length;
        // A target whose directory cannot be listed counts a read error.
        const complete = failUnlisted(unlisted, logger, ({ kind, target }) => {
          const ref = { kind, name: target };
          if (acc.admit(ref)) acc.markFailed(ref);
        });
        const files = present.filter((file) => acc.admit(file.ref));
        // Deadlines: a huge target is cut rather than the whole collector timing out, which would
        // serve no target at all. Checked after each chunk (1 MiB, a few ms of parsing).
        const readDeadline = Date.now() + settings.readTimeoutMs;
        const late: string[] = [];
        const notReached = (file: JobStatsFile): void => {
          // Not reached in time: read as cut before its first byte (its entries and series are kept).
          acc.read(file.ref).end('timeout');
          late.push(file.ref.name);
        };
        /** One file: streamed with the lane's buffers, or settled from a read made whole (re-read if need be). */
        const readOne = async (file: JobStatsFile, lane: ChunkBuffers | undefined, whole?: WholeRead): Promise<void> => {
          const deadline = Math.min(readDeadline, Date.now() + settings.targetTimeoutMs);
          const outcome = await readJobStatsFile(file, acc.read(file.ref), settings.maxFileBytes, signal, lane, () => Date.now() >= deadline, whole);
          if ('bytes' in outcome) {
            if (outcome.bytes > MAX_WHOLE_BYTES) streamed.add(file.path);
            else streamed.delete(file.path);
          }
          // Only a file read stays known: a failed one has its directory listed again next scrape (an
          // unlistable directory is then counted as such), a gone one is absent as a listing would say.
          if (!('bytes' in outcome)) known.delete(dirname(file.path));
          if ('gone' in outcome) gone += 1;
          else if ('error' in outcome) logger.warn({ path: file.path, reason: readErrorReason(outcome.error), err: outcome.error.message }, 'cannot read job_stats: the target keeps its series');
          else if ('cut' in outcome && outcome.cut === 'timeout')
            logger.warn(
              { path: file.path, bytes: outcome.bytes, targetTimeoutMs: settings.targetTimeoutMs },
              'job_stats read cut at its deadline (target-timeout or read-timeout): the entries beyond keep their values',
            );
          else if ('cut' in outcome && outcome.cut === 'max_file_bytes') logger.debug({ path: file.path, maxBytes: settings.maxFileBytes }, 'job_stats read cut at max-file-bytes');
        };
        // A few files at a time, one reused chunk buffer per lane: each target has its own reader.
        const readStreamed = (list: readonly JobStatsFile[]): Promise<void> =>
          forEachLimited(list, READ_LANES, async (file, lane) => {
            signal.throwIfAborted();
            if (Date.now() >= readDeadline) notReached(file);
            else await readOne(file, (buffers[lane] ??= { buffer: Buffer.allocUnsafe(CHUNK_BYTES), spare: Buffer.allocUnsafe(CHUNK_BYTES) }));
          });
        // Small files (all of them until their size is known) are read whole on the small-files worker;
        // what it leaves (bigger files, errors) and the files known to be big are streamed.
        const small = files.filter((file) => !streamed.has(file.path));
        const declined: JobStatsFile[] = [];
        const wholeOptions = { chunkBytes: CHUNK_BYTES, maxBytes: settings.maxFileBytes, maxWholeBytes: MAX_WHOLE_BYTES, notAfter: readDeadline, timeoutMs: settings.targetTimeoutMs };
        const wholeReads: Promise<void>[] = [];
        await Promise.all([
          readStreamed(files.filter((file) => streamed.has(file.path))),
          readSmallFiles(
            small.map((file) => file.path),
            wholeOptions,
            (i, result) => {
              const file = small[i];
              signal.throwIfAborted();
              if (file === undefined) return;
              if (result === 'declined') declined.push(file);
              else if (result === 'not_reached') notReached(file);
              else {
                // Every chunk is in hand: the read settles without waiting for any file call (unless
                // it must be read again, streamed). Handled at once: should this read fail after an
                // abort while the reads above have already failed, nothing would await it.
                const read = readOne(file, undefined, result);
                read.catch(() => undefined);
                wholeReads.push(read);
              }
            },
          ),
        ]);
        await Promise.all(wholeReads);
        await readStreamed(declined);
        for (const path of streamed) if (!known.has(dirname(path))) streamed.delete(path);
        if (late.length > 0)
          logger.warn({ targets: late.length, readTimeoutMs: settings.readTimeoutMs }, 'job_stats targets not read this scrape: read-timeout passed before they were reached (they keep their series)');
        return { found: present.length > gone, complete };
      },
      async finish(complete) {
        if (acc.droppedTargets !== droppedTargetsLogged) {
          if (acc.droppedTargets > 0)
            logger.warn({ dropped: acc.droppedTargets, maxTargets: settings.maxTargets }, 'more Lustre targets than --collector.lustre_jobstats.max-targets: the others are not read');
          droppedTargetsLogged = acc.droppedTargets;
        }
        await users.resolve(acc.uids());
        acc.finish(Date.now(), (uid) => users.label(uid), complete);
        const budgetDropped = acc.budgetDroppedEntries();
        if (budgetDropped > budgetDroppedLogged)
          logger.warn(
            { dropped: budgetDropped - budgetDroppedLogged, maxTotalEntries: settings.maxTotalEntries },
            'new job_stats entries dropped: all targets together hold --collector.lustre_jobstats.max-total-entries (counted in jobio_lustre_jobstats_dropped_entries_total)',
          );
        budgetDroppedLogged = budgetDropped;
        const outOfRange = acc.outOfRangeEntries();
        for (const [target, total] of outOfRange) {
          const before = outOfRangeLogged.get(target) ?? 0;
          if (total > before)
            logger.warn(
              { target, rejected: total - before },
              'job_stats entries with a samples or sum beyond u64 rejected (no increment): counted in jobio_lustre_jobstats_parse_errors_total{reason="value_out_of_range"}',
            );
        }
        outOfRangeLogged = outOfRange;
      },
    };
    return { update: (signal) => updateLustre(steps, acc, metrics, signal), describe: () => lustreSource('mdt/obdfilter job_stats', settings, LCTL_ARGS.slice(1), paths) };
  },
});
