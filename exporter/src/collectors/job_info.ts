// Collector `job_info`: who and what each job running on this host is, as one info series per job,
// `jobio_job_info{jobid,user,account,partition,job_name,work_dir} 1`, for joins such as
// `sum by (account) (rate(jobio_job_cpu_user_seconds_total[5m]) * on (jobid) group_left(account) jobio_job_info)`.
// Sources (docs/schedulers.md): the job files the prolog writes as root (sources/job-spool.ts,
// verified before use), then `squeue` for this node (sources/squeue-jobs.ts, cached, with a
// deadline) for jobs or fields the spool lacks. Quiet (`absent`) where neither exists.
// Metrics: docs/metrics.md.
import { hostname } from 'node:os';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, textFlag } from '../scrape/flags.js';
import { DEFAULT_JOB_SPOOL, readJobSpool, type JobMeta } from '../sources/job-spool.js';
import { SqueueJobs } from '../sources/squeue-jobs.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { UNKNOWN } from '../labels/reserved.js';
import { rootPath } from '../util/paths.js';
import { boundLabel } from '../labels/bounded-label.js';
import type { Labels, MetricFamily, SampleSink } from '../scrape/metric-family.js';

/** What the families hand out: the last update's jobs, and running counts since they were registered. */
interface JobInfoState {
  /** The info series' labels (jobid, user, account, partition, job_name, work_dir), one per job with a series. */
  info: Labels[];
  jobs: number;
  dropped: number;
  truncatedTotal: number;
  /** Running counts by reason, each reason where it first counted (even 0). */
  readonly rejected: Map<string, number>;
  readonly squeueFailures: Map<string, number>;
}

/** Registers the job_info families, reading the state it returns when the scrape renders them. */
function registerFamilies(registry: MetricRegistry): JobInfoState {
  const state: JobInfoState = { info: [], jobs: 0, dropped: 0, truncatedTotal: 0, rejected: new Map(), squeueFailures: new Map() };
  const byReason = (counts: ReadonlyMap<string, number>) => (sink: SampleSink) => {
    for (const [reason, n] of counts) sink.sample({ reason }, n);
  };
  const families: MetricFamily[] = [
    {
      name: 'jobio_job_info',
      help: 'Scheduler metadata of a job running on this host (always 1); join on jobid.',
      type: 'gauge',
      collect: (sink) => state.info.forEach((labels) => sink.sample(labels, 1)),
    },
    { name: 'jobio_job_info_jobs', help: 'Jobs running on this host according to the prolog spool and squeue.', type: 'gauge', collect: (sink) => sink.sample({}, state.jobs) },
    { name: 'jobio_job_info_dropped_jobs', help: 'Running jobs without a jobio_job_info series (beyond max-jobs).', type: 'gauge', collect: (sink) => sink.sample({}, state.dropped) },
    { name: 'jobio_job_info_spool_rejected_total', help: 'Job spool entries not trusted or not read, by reason.', type: 'counter', collect: byReason(state.rejected) },
    {
      name: 'jobio_job_info_truncated_labels_total',
      help: 'Label values cut to label-max-length characters (or with control characters replaced).',
      type: 'counter',
      collect: (sink) => sink.sample({}, state.truncatedTotal),
    },
    {
      name: 'jobio_job_info_squeue_failures_total',
      help: 'squeue calls that failed (error: no answer, or no squeue JSON) and running jobs of this node in its answer that did not decode (malformed_job).',
      type: 'counter',
      collect: byReason(state.squeueFailures),
    },
  ];
  for (const family of families) registry.register(family);
  return state;
}

/** Adds `n` to a running count, which exists from its first count on. */
function count(counts: Map<string, number>, reason: string, n: number): void {
  counts.set(reason, (counts.get(reason) ?? 0) + n);
}

/**
 * The jobs whose spool file the epilog removed: ended, though squeue's cached answer (up to
 * squeue-interval old) still lists them. They stay ended until a fresh squeue answer no longer lists
 * them, or until the spool names them again (a requeued job starting anew under its id).
 */
export class EndedJobs {
  private readonly inSpool = new Set<string>();
  private readonly ended = new Set<string>();

  /** Notes this scrape's spool (when it exists) and squeue answer; returns the squeue jobs still running. */
  filter(spool: { exists: boolean; jobs: readonly JobMeta[] }, queue: { fresh: boolean; jobs: readonly JobMeta[] }): JobMeta[] {
    if (spool.exists) {
      const now = new Set(spool.jobs.map((j) => j.jobid));
      for (const id of this.inSpool) if (!now.has(id)) this.ended.add(id);
      this.inSpool.clear();
      for (const id of now) {
        this.inSpool.add(id);
        this.ended.delete(id);
      }
    }
    if (queue.fresh) {
      const listed = new Set(queue.jobs.map((j) => j.jobid));
      for (const id of this.ended) if (!listed.has(id)) this.ended.delete(id);
    }
    return queue.jobs.filter((j) => !this.ended.has(j.jobid));
  }
}

/** Spool first (root-written, per job), for every field it has, an empty one included; squeue fills the jobs and fields it lacks. */
export function mergeJobs(spool: readonly JobMeta[], squeue: readonly JobMeta[]): JobMeta[] {
  const byId = new Map<string, JobMeta>();
  for (const job of squeue) byId.set(job.jobid, job);
  for (const job of spool) byId.set(job.jobid, { ...byId.get(job.jobid), ...job });
  return [...byId.values()].sort((a, b) => a.jobid.localeCompare(b.jobid, 'en', { numeric: true }));
}

export const jobInfoCollector = defineCollector({
  name: 'job_info',
  help: 'Account, partition, job name and working directory of the jobs running on this host, from the prolog spool and squeue (quiet without either).',
  defaultEnabled: true,
  flags: {
    spoolDir: textFlag('spool-dir', DEFAULT_JOB_SPOOL, 'Directory of the job files the prolog writes (root-owned, not group/other-writable; read under --path.rootfs).'),
    squeue: textFlag('squeue', 'squeue', 'squeue program asked for this node\'s running jobs ("" = never).'),
    squeueIntervalMs: durationFlag('squeue-interval', '60s', 'At most one squeue call per this interval; scrapes in between use its last answer.'),
    squeueTimeoutMs: durationFlag('squeue-timeout', '5s', 'Deadline of one squeue call.'),
    node: textFlag('node', '', "This host's Slurm node name for squeue -w (default: the short host name)."),
    maxJobs: positiveIntegerFlag('max-jobs', 100, 'Jobs with their own jobio_job_info series; further jobs are counted in jobio_job_info_dropped_jobs.'),
    labelMaxLength: positiveIntegerFlag('label-max-length', 128, 'Longest job_name, work_dir, account or partition value kept (longer ones are cut and counted).'),
    ...USER_FLAGS,
  },
  create({ registry, paths, settings, logger }) {
    const spoolDir = rootPath(paths, settings.spoolDir);
    const { maxJobs, labelMaxLength: maxLength } = settings;
    const node = settings.node || (hostname().split('.')[0] ?? '');
    const squeue = new SqueueJobs({
      command: settings.squeue,
      node,
      intervalMs: settings.squeueIntervalMs,
      timeoutMs: settings.squeueTimeoutMs,
    });
    const users = userResolverFor(paths, settings);
    const members = new Set<string>(); // jobs with a series: sticky while they run
    const ended = new EndedJobs();
    /** The families' state; undefined until the first update that finds a source, and again while there is none (no families). */
    let state: JobInfoState | undefined;
    let lastError: string | undefined;
    let why: string | undefined;
    const clear = (): 'absent' => {
      if (state) registry.clear();
      state = undefined;
      return 'absent';
    };

    return {
      describe: () => ({ source: `job spool ${spoolDir}${settings.squeue === '' ? '' : `, ${settings.squeue} for node ${node}`}`, ...(why ? { why } : {}) }),
      async update(signal) {
        const [spool, queue] = await Promise.all([readJobSpool(spoolDir, signal), squeue.get(Date.now(), signal)]);
        // A squeue killed at the deadline answers with an error: this scrape has failed anyway, and
        // the error is reported by the next one.
        signal.throwIfAborted();
        if (!spool.exists && !queue.available) {
          why = `no job spool at ${spoolDir}${settings.squeue === '' ? '' : ` and no ${settings.squeue} installed`}`;
          return clear();
        }
        // Logged when the failure starts or changes, not at every interval while it lasts. Without
        // a spool, a squeue that fails means no scheduler answers here (slurm-client on a Lustre
        // server, a controller that is down): nothing to read, quietly (debug), like any absent source.
        const changed = queue.fresh && queue.error !== lastError && queue.error !== undefined;
        if (queue.fresh) lastError = queue.error;
        if (!spool.exists && queue.error !== undefined) {
          // The error starts with the command line (its -o format has control characters): the message only.
          why = `no job spool at ${spoolDir} and ${settings.squeue} failed: ${queue.error.split(': ').slice(1).join(': ')}`;
          if (changed) logger.debug({ error: queue.error }, 'squeue failed and there is no job spool: no scheduler metadata on this host');
          return clear();
        }
        why = undefined;
        if (changed) logger.warn({ error: queue.error }, 'squeue failed: job metadata from the spool only');
        const jobs = mergeJobs(spool.jobs, ended.filter(spool, queue));
        await users.resolve(new Set(jobs.flatMap((j) => (j.uid !== undefined ? [j.uid] : []))));

        const present = new Set(jobs.map((j) => j.jobid));
        for (const id of members) if (!present.has(id)) members.delete(id);
        const info: Labels[] = [];
        let dropped = 0;
        let truncated = 0;
        const bound = (value: string | undefined): string => {
          const b = boundLabel(value ?? '', maxLength);
          if (b.changed) truncated += 1;
          return b.value;
        };
        for (const job of jobs) {
          if (!members.has(job.jobid) && members.size >= maxJobs) {
            dropped += 1;
            continue;
          }
          members.add(job.jobid);
          info.push({
            jobid: job.jobid,
            user: job.uid !== undefined ? users.label(job.uid) : UNKNOWN,
            account: bound(job.account),
            partition: bound(job.partition),
            job_name: bound(job.jobName),
            work_dir: bound(job.workDir),
          });
        }
        // Complete: the families hand it out from the next scrape on.
        const st = (state ??= registerFamilies(registry));
        st.info = info;
        st.jobs = jobs.length;
        st.dropped = dropped;
        st.truncatedTotal += truncated;
        for (const [reason, n] of spool.rejected) count(st.rejected, reason, n);
        if (queue.fresh && queue.error !== undefined) count(st.squeueFailures, 'error', 1);
        if (queue.fresh && queue.malformed > 0) count(st.squeueFailures, 'malformed_job', queue.malformed);
        return 'ok';
      },
    };
  },
});
