// Collector `cgroup`: per batch job (Slurm, PBS, LSF, Flux; layouts in sources/cgroup-jobs.ts) CPU
// user/system seconds and current/peak memory from the job cgroups (docs/gpu-and-cgroups.md,
// docs/metrics.md), v1 and v2 layouts. Quiet (`absent`) on hosts without job cgroups. The CPU
// counters are the kernel's own (monotonic for the job's life; the series stops when the cgroup
// goes). Jobs are sampled between scrapes too (sample-interval), and a job whose cgroup is gone keeps
// its last values until finished-expiry (cgroup_finished.ts), so a job shorter than the scrape
// interval is still accounted. Jobs of the root-written job spool that have no job cgroup (Grid
// Engine) are measured from their processes instead (sources/process-jobs.ts), into the same
// series. Guide: docs/gpu-and-cgroups.md. Metrics: docs/metrics.md.
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag, textFlag } from '../scrape/flags.js';
import { findCgroupJobs, type OwnerCache } from '../sources/cgroup-jobs.js';
import { readCgroupUsage } from '../sources/cgroup-usage.js';
import { DEFAULT_JOB_SPOOL, readJobSpool } from '../sources/job-spool.js';
import { ProcessJobTracker } from '../sources/process-jobs.js';
import { USER_FLAGS, userResolverFor } from '../labels/users.js';
import { CgroupJobFold, OTHER } from './cgroup_fold.js';
import { FinishedJobs } from './cgroup_finished.js';
import { combinedFamily } from '../scrape/combined-family.js';
import type { MetricFamily } from '../scrape/metric-family.js';
import { procPath, rootPath, sysPath } from '../util/paths.js';

/** One job's series as the last update read them (from its cgroup, its processes, or the sum of the folded jobs). */
interface JobFigures {
  readonly labels: { readonly jobid: string; readonly user: string };
  readonly cpu?: { readonly user: number; readonly system: number };
  readonly memoryBytes?: number;
  readonly memoryPeakBytes?: number;
}

/** What the last update read: the jobs' series (the folded jobs' sum last) and the counts of jobs. */
interface CgroupSnapshot {
  readonly jobs: readonly JobFigures[];
  readonly cgroupJobs: number;
  readonly processJobs: number;
  readonly finishedJobs: number;
  readonly foldedJobs: number;
  /** cgroup files not read or parsed, since the families were registered. */
  readonly malformedTotal: number;
}

/** The cgroup families, handing out `snapshot()` when the scrape renders them (registered on first use). */
function registerFamilies(registry: MetricRegistry, snapshot: () => CgroupSnapshot): void {
  // A job seen twice is one series, as prom-client's metrics made it: CPU added up, memory the last.
  const perJob = (name: string, help: string, type: 'counter' | 'gauge', value: (j: JobFigures) => number | undefined): MetricFamily =>
    combinedFamily(
      name,
      help,
      type,
      (add) => {
        for (const j of snapshot().jobs) {
          const v = value(j);
          if (v !== undefined) add(j.labels, v);
        }
      },
      type === 'gauge' ? 'last' : 'sum',
    );
  const count = (name: string, help: string, type: 'counter' | 'gauge', value: (s: CgroupSnapshot) => number): MetricFamily => ({
    name,
    help,
    type,
    collect: (sink) => sink.sample({}, value(snapshot())),
  });
  for (const family of [
    perJob('jobio_job_cpu_user_seconds_total', 'CPU time of the job in user mode in seconds, from its cgroup (or its processes where it has none).', 'counter', (j) => j.cpu?.user),
    perJob('jobio_job_cpu_system_seconds_total', 'CPU time of the job in kernel mode in seconds, from its cgroup (or its processes where it has none).', 'counter', (j) => j.cpu?.system),
    perJob('jobio_job_memory_bytes', 'Memory charged to the job cgroup now in bytes (v1 usage_in_bytes includes page cache).', 'gauge', (j) => j.memoryBytes),
    perJob('jobio_job_memory_peak_bytes', 'Highest memory charged to the job cgroup in bytes.', 'gauge', (j) => j.memoryPeakBytes),
    count('jobio_cgroup_jobs', 'Batch job cgroups (Slurm, PBS, LSF, Flux) found on this host in the last scrape.', 'gauge', (s) => s.cgroupJobs),
    count('jobio_cgroup_process_jobs', 'Running jobs of the job spool without a job cgroup (Grid Engine), measured from their processes in the last scrape.', 'gauge', (s) => s.processJobs),
    count('jobio_cgroup_folded_jobs', 'Running jobs without their own series (beyond max-jobs), summed into jobid="_other".', 'gauge', (s) => s.foldedJobs),
    count('jobio_cgroup_finished_jobs', 'Ended jobs still exported with their final values (last sample before their cgroup went), until finished-expiry.', 'gauge', (s) => s.finishedJobs),
    count('jobio_cgroup_malformed_files_total', 'cgroup files that could not be read or parsed (the value is left out of that scrape).', 'counter', (s) => s.malformedTotal),
  ])
    registry.register(family);
}

export const cgroupCollector = defineCollector({
  name: 'cgroup',
  help: 'Per-job CPU and memory of the batch jobs on this host (Slurm, PBS, LSF, Flux), from their cgroups (v1 and v2; quiet without job cgroups).',
  defaultEnabled: true,
  flags: {
    maxJobs: positiveIntegerFlag('max-jobs', 100, 'Jobs with their own series; further jobs are summed into jobid="_other" for their whole life.'),
    userHz: positiveIntegerFlag('user-hz', 100, 'Clock ticks per second of v1 cpuacct.stat (USER_HZ), used where cpuacct.usage_user/usage_sys are missing.'),
    sampleIntervalMs: durationFlag('sample-interval', '1s', 'Job cgroups are also sampled this often between scrapes, so a job shorter than the scrape interval keeps its last values.'),
    finishedExpiryMs: durationFlag('finished-expiry', '10m', "An ended job's final CPU seconds and peak memory stay exported this long after its cgroup went."),
    spoolDir: textFlag('spool-dir', DEFAULT_JOB_SPOOL, "The prolog's job spool (as --collector.job_info.spool-dir): its jobs without a job cgroup are measured from their processes."),
    ...USER_FLAGS,
  },
  create({ registry, paths, settings, logger }) {
    const users = userResolverFor(paths, settings);
    const fold = new CgroupJobFold(settings.maxJobs);
    const owners: OwnerCache = new Map();
    /** What the last update read; undefined until the first, and again while there is no source (no families). */
    let snapshot: CgroupSnapshot | undefined;

    const book = new FinishedJobs<Sample>(settings.finishedExpiryMs);
    const spoolDir = rootPath(paths, settings.spoolDir);
    const processJobs = new ProcessJobTracker(procPath(paths), settings.userHz);

    /** One sampling of every job, recorded in the book; undefined on a host with neither job cgroups nor a job spool. */
    const sampleJobs = async (signal?: AbortSignal): Promise<{ jobs: number; processJobs: number; samples: Sample[]; problems: string[] } | undefined> => {
      const [found, spool] = await Promise.all([findCgroupJobs(paths, owners, signal), readJobSpool(spoolDir, signal)]);
      if (!found.slurm && !spool.exists) return undefined;
      const samples: Sample[] = [];
      const problems: string[] = [];
      for (const job of found.jobs) {
        // A v2 job none of whose tasks has been seen yet has no owner: exported from the first scrape that finds one.
        if (job.uid === undefined) continue;
        const usage = await readCgroupUsage(job, settings.userHz, signal);
        problems.push(...usage.problems);
        samples.push({ ...usage, jobid: job.jobid, uid: job.uid });
      }
      // The spool's jobs that no cgroup holds, from their owners' processes.
      const inCgroups = new Set(found.jobs.map((j) => j.jobid));
      const withoutCgroup = new Map(spool.jobs.flatMap((j) => (j.uid === undefined || inCgroups.has(j.jobid) ? [] : [[j.jobid, j.uid] as const])));
      const byProcess = withoutCgroup.size > 0 ? await processJobs.sample(withoutCgroup, signal) : [];
      for (const u of byProcess) samples.push({ jobid: u.jobid, uid: u.uid, cpu: u.cpu, memoryBytes: u.memoryBytes, memoryPeakBytes: u.memoryPeakBytes, problems: [] });
      return { jobs: found.jobs.length, processJobs: byProcess.length, samples: book.observe(samples, Date.now()), problems };
    };
    // Between scrapes: one sampling at a time; its problems are counted by the scrapes' own reads.
    let sampling = false;
    const timer = setInterval(() => {
      if (sampling) return;
      sampling = true;
      sampleJobs()
        .catch((err: unknown) => logger.debug({ err }, 'cgroup sampling between scrapes failed'))
        .finally(() => {
          sampling = false;
        });
    }, settings.sampleIntervalMs);
    timer.unref();

    return {
      describe: () => ({ source: `job cgroups (Slurm, PBS, LSF, Flux; v1 and v2) under ${sysPath(paths, 'fs', 'cgroup')}; processes of the jobs in ${spoolDir} without one` }),
      close() {
        clearInterval(timer);
        return Promise.resolve();
      },
      async update(signal) {
        const now = await sampleJobs(signal);
        if (!now) {
          // Exports nothing at all on a host without job cgroups or job spool (families are registered on first use).
          if (snapshot) registry.clear();
          snapshot = undefined;
          return 'absent';
        }
        for (const problem of now.problems) logger.warn({ problem }, 'malformed cgroup file');
        const problems = now.problems.length;
        const finals = book.finals();
        const samples = [...now.samples, ...finals];
        await users.resolve(new Set(samples.map((s) => s.uid)));
        const view = fold.apply(samples);

        // The snapshot is complete: the families hand it out from the next scrape on (never half-made).
        const jobs: JobFigures[] = view.own.map((j) => ({
          labels: { jobid: j.jobid, user: users.label(j.uid) },
          ...(j.cpu ? { cpu: j.cpu } : {}),
          ...(j.memoryBytes !== undefined ? { memoryBytes: j.memoryBytes } : {}),
          ...(j.memoryPeakBytes !== undefined ? { memoryPeakBytes: j.memoryPeakBytes } : {}),
        }));
        if (view.otherCpu) jobs.push({ labels: { jobid: OTHER, user: OTHER }, cpu: view.otherCpu, memoryBytes: view.otherMemoryBytes, memoryPeakBytes: view.otherMemoryPeakBytes });
        if (!snapshot) registerFamilies(registry, () => snapshot ?? EMPTY);
        snapshot = {
          jobs,
          cgroupJobs: now.jobs,
          processJobs: now.processJobs,
          finishedJobs: finals.length,
          foldedJobs: view.foldedJobs,
          malformedTotal: (snapshot?.malformedTotal ?? 0) + problems,
        };
        return 'ok';
      },
    };
  },
});

const EMPTY: CgroupSnapshot = { jobs: [], cgroupJobs: 0, processJobs: 0, finishedJobs: 0, foldedJobs: 0, malformedTotal: 0 };

type Sample = Awaited<ReturnType<typeof readCgroupUsage>> & { readonly jobid: string; readonly uid: number };
