// Collector `lustre_jobstats`: per-job I/O of the Lustre server targets on this host (MDTs and
// OSTs), from job_stats, as exact exporter-owned counters with bounded cardinality (docs/architecture.md "Bounded cardinality" and "Lustre: counters the exporter owns").
// Admin guide: docs/lustre.md. Metrics: docs/metrics.md.
import { optionReader } from '../scrape/option-reader.js';
import type { CollectorDescriptor, CollectorOptions } from '../scrape/collector.js';
import { positiveDuration, positiveInteger } from '../scrape/flag-values.js';
import { compileJobIdFormats } from '../lustre/jobid-format.js';
import { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import { findJobStatsFiles, readJobStatsFile } from '../sources/lustre-jobstats-files.js';
import { runLctl } from '../sources/lustre-lctl.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { forEachLimited } from '../util/for-each-limited.js';
import { failUnlisted, updateLustre, type UpdateSteps } from '../lustre/update.js';
import { LustreJobStatsMetrics } from './lustre_jobstats_metrics.js';

export const DEFAULT_JOBID_FORMAT = '%j:%u:%H,%e.%u';
export const DEFAULT_MAX_JOBS = 100;
export const DEFAULT_EXPIRY = '30m';
/** Files read at once, and the chunk each is read in (memory: READ_LANES × CHUNK_BYTES). */
const READ_LANES = 4;
const CHUNK_BYTES = 256 * 1024;
/** About 110,000 entries of a 2.14+ OST (2.3 KB each): a scrape of ~2 s on a small server. */
export const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;
/** Targets read per scrape: a big OSS has tens; 10,000 took 12 s a scrape. */
export const DEFAULT_MAX_TARGETS = 256;
/** Remembered entries per target: ~0.5 KB each, 100 MB at most. */
export const DEFAULT_MAX_ENTRIES = 200_000;



function validFormats(text: string): string {
  compileJobIdFormats(text);
  return text;
}

export const lustreJobStatsCollector: CollectorDescriptor = {
  name: 'lustre_jobstats',
  help: 'Per-job I/O of the Lustre MDTs and OSTs on this host, from job_stats (quiet where there are none).',
  defaultEnabled: true,
  flags: [
    { name: 'jobid-format', help: 'Lustre jobid_name formats of the entry ids, comma-separated, tried in order (%j job, %u uid, %g gid, %e executable, %h FQDN, %H short host, %p pid).', default: DEFAULT_JOBID_FORMAT, parse: validFormats },
    { name: 'max-jobs', help: 'Jobs with their own series per target; the increments of the others go to jobid="_other".', default: DEFAULT_MAX_JOBS, parse: positiveInteger },
    { name: 'expiry', help: 'A job series without any increment for this long is removed (longer than the servers\' job_cleanup_interval).', default: DEFAULT_EXPIRY, parse: positiveDuration },
    { name: 'max-targets', help: 'Targets read per scrape (the first in name order, then sticky while they have series); further targets are not read (counted in jobio_lustre_jobstats_targets_dropped).', default: DEFAULT_MAX_TARGETS, parse: positiveInteger },
    { name: 'max-file-bytes', help: 'Bytes read of one job_stats file per scrape; the rest is not read this scrape (counted in jobio_lustre_jobstats_truncated_reads_total).', default: DEFAULT_MAX_FILE_BYTES, parse: positiveInteger },
    { name: 'max-entries', help: 'job_stats entries remembered per target; new entries beyond it are dropped (counted in jobio_lustre_jobstats_dropped_entries_total).', default: DEFAULT_MAX_ENTRIES, parse: positiveInteger },
    { name: 'lctl', help: 'Read job_stats through `lctl get_param` instead of the files under --path.procfs/--path.sysfs.', default: false },
    { name: 'lctl-path', help: 'The lctl program for --collector.lustre_jobstats.lctl.', default: 'lctl' },
    { name: 'lctl-timeout', help: 'Deadline of one lctl get_param run.', default: '10s', parse: positiveDuration },
    ...USER_FLAGS,
  ],
  create({ registry, paths, options, logger }) {
    const settings = readSettings(options);
    const acc = new JobStatsAccumulator({ maxJobs: settings.maxJobs, expiryMs: settings.expiryMs, formats: compileJobIdFormats(settings.jobidFormat), maxEntries: settings.maxEntries, maxTargets: settings.maxTargets });
    const metrics = new LustreJobStatsMetrics(registry, settings.maxJobs, settings.maxTargets);
    let droppedTargetsLogged = 0;
    const users = userResolverFor(paths, options);
    const buffers: Buffer[] = [];

    const steps: UpdateSteps = {
      begin: () => acc.begin(),
      async read(signal) {
        if (settings.lctl) {
          const result = await runLctl(settings.lctlPath, settings.lctlTimeoutMs, signal);
          if (!result.absent) acc.ingest(result.stdout);
          return { found: !result.absent, complete: true };
        }
        const { files: present, unlisted } = await findJobStatsFiles(paths);
        acc.unreadableDirsTotal += unlisted.length;
        // A target whose directory cannot be listed counts a read error.
        const complete = failUnlisted(unlisted, logger, ({ kind, target }) => {
          const ref = { kind, name: target };
          if (acc.admit(ref)) acc.markFailed(ref);
        });
        const files = present.filter((file) => acc.admit(file.ref));
        // A few files at a time, one reused chunk buffer per lane: each target has its own reader.
        await forEachLimited(files, READ_LANES, async (file, lane) => {
          signal.throwIfAborted();
          const outcome = await readJobStatsFile(file, acc.read(file.ref), settings.maxFileBytes, signal, (buffers[lane] ??= Buffer.allocUnsafe(CHUNK_BYTES)));
          if ('error' in outcome) logger.warn({ path: file.path, err: outcome.error.message }, 'cannot read job_stats');
          else if ('truncated' in outcome && outcome.truncated) logger.debug({ path: file.path, maxBytes: settings.maxFileBytes }, 'job_stats read cut at max-file-bytes');
        });
        return { found: present.length > 0, complete };
      },
      async finish(complete) {
        if (acc.droppedTargets !== droppedTargetsLogged) {
          if (acc.droppedTargets > 0) logger.warn({ dropped: acc.droppedTargets, maxTargets: settings.maxTargets }, 'more Lustre targets than --collector.lustre_jobstats.max-targets: the others are not read');
          droppedTargetsLogged = acc.droppedTargets;
        }
        await users.resolve(acc.uids());
        acc.finish(Date.now(), (uid) => users.label(uid), complete);
      },
    };
    return { update: (signal) => updateLustre(steps, acc, metrics, signal) };
  },
};

interface Settings {
  readonly jobidFormat: string;
  readonly maxJobs: number;
  readonly maxTargets: number;
  readonly maxFileBytes: number;
  readonly maxEntries: number;
  readonly expiryMs: number;
  readonly lctl: boolean;
  readonly lctlPath: string;
  readonly lctlTimeoutMs: number;
}

/** Options arrive parsed by the flags' parsers; defaults apply when a test passes none. */
function readSettings(options: CollectorOptions): Settings {
  const { text, num, bool, duration } = optionReader(options);
  return {
    jobidFormat: text('jobid-format', DEFAULT_JOBID_FORMAT),
    maxJobs: num('max-jobs', DEFAULT_MAX_JOBS),
    maxTargets: num('max-targets', DEFAULT_MAX_TARGETS),
    maxFileBytes: num('max-file-bytes', DEFAULT_MAX_FILE_BYTES),
    maxEntries: num('max-entries', DEFAULT_MAX_ENTRIES),
    expiryMs: duration('expiry', DEFAULT_EXPIRY),
    lctl: bool('lctl', false),
    lctlPath: text('lctl-path', 'lctl'),
    lctlTimeoutMs: duration('lctl-timeout', '10s'),
  };
}
