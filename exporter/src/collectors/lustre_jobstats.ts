// Collector `lustre_jobstats`: per-job I/O of the Lustre server targets on this host (MDTs and
// OSTs), from job_stats, as exact exporter-owned counters with bounded cardinality (docs/architecture.md "Bounded cardinality" and "Lustre: counters the exporter owns").
// Admin guide: docs/lustre.md. Metrics: docs/metrics.md.
import { optionReader } from '../scrape/option-reader.js';
import type { CollectorDescriptor, CollectorOptions } from '../scrape/collector.js';
import { positiveDuration, positiveInteger } from '../scrape/flag-values.js';
import { compileJobIdFormats } from '../lustre/jobid-format.js';
import { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import { findJobStatsFiles, readJobStatsFiles } from '../sources/lustre-jobstats-files.js';
import { runLctl } from '../sources/lustre-lctl.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { LustreJobStatsMetrics } from './lustre_jobstats_metrics.js';

export const DEFAULT_JOBID_FORMAT = '%j:%u:%H,%e.%u';
export const DEFAULT_MAX_JOBS = 100;
export const DEFAULT_EXPIRY = '30m';



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
    { name: 'lctl', help: 'Read job_stats through `lctl get_param` instead of the files under --path.procfs/--path.sysfs.', default: false },
    { name: 'lctl-path', help: 'The lctl program for --collector.lustre_jobstats.lctl.', default: 'lctl' },
    { name: 'lctl-timeout', help: 'Deadline of one lctl get_param run.', default: '10s', parse: positiveDuration },
    ...USER_FLAGS,
  ],
  create({ registry, paths, options, logger }) {
    const settings = readSettings(options);
    const acc = new JobStatsAccumulator({ maxJobs: settings.maxJobs, expiryMs: settings.expiryMs, formats: compileJobIdFormats(settings.jobidFormat) });
    const metrics = new LustreJobStatsMetrics(registry, settings.maxJobs);
    const users = userResolverFor(paths, options);

    return {
      async update(signal) {
        acc.begin();
        let found = false;
        let failure: { error: unknown } | undefined; // boxed: the error thrown may itself be undefined
        try {
          if (settings.lctl) {
            const result = await runLctl(settings.lctlPath, settings.lctlTimeoutMs, signal);
            found = !result.absent;
            if (found) acc.ingest(result.stdout);
          } else {
            const files = await findJobStatsFiles(paths);
            found = files.length > 0;
            for await (const read of readJobStatsFiles(files, signal)) {
              if ('error' in read) {
                acc.markFailed(read.ref);
                logger.warn({ path: read.path, err: read.error.message }, 'cannot read job_stats');
              } else {
                acc.ingest(read.data, read.ref);
              }
            }
          }
        } catch (err) {
          failure = { error: err };
        }
        // Settle whatever was read even on failure: entries already advanced must not lose increments.
        await users.resolve(acc.uids());
        acc.finish(Date.now(), (uid) => users.label(uid), failure === undefined);
        if (failure !== undefined) throw failure.error;
        if (!found && acc.targetCount === 0) {
          metrics.clear();
          return 'absent';
        }
        metrics.refill(acc);
        return 'ok';
      },
    };
  },
};

interface Settings {
  readonly jobidFormat: string;
  readonly maxJobs: number;
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
    expiryMs: duration('expiry', DEFAULT_EXPIRY),
    lctl: bool('lctl', false),
    lctlPath: text('lctl-path', 'lctl'),
    lctlTimeoutMs: duration('lctl-timeout', '10s'),
  };
}
