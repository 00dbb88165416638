// CPU and memory of the jobs a scheduler runs without a job cgroup (Grid Engine 8.1, a PBS or LSF
// without their cgroup features), from the jobs' processes under --path.procfs. The jobs come from
// the root-written job spool (sources/job-spool.ts), which names each job's owner; a process counts
// for a job only when the resolver (labels/process-job.ts: cgroup, then environment, e.g. Grid
// Engine's JOB_ID) names that job AND its real uid is the job's owner. Any user can put JOB_ID=<x>
// into their own processes' environment, so the owner check is what keeps one user's processes out of
// another user's job; a user can only add to their own job.
//
// Per job, summed over its live processes:
//   CPU    utime+cutime (user) and stime+cstime (system) of /proc/<pid>/stat, in USER_HZ ticks: each
//          process's own time and that of its children it has waited for. A process reaped by a
//          parent outside the job (the job's first process, reaped by the scheduler's daemon) takes
//          its time with it when it exits, so the sum can drop; the tracker keeps the highest sum seen,
//          a counter that never goes back. The CPU after the last sample before the job's last
//          process exits is not seen (at most one sample interval).
//   memory the sum of VmRSS (resident memory now; shared pages counted once per process); the peak is
//          the highest of every sampled sum and every process's own VmHWM, a lower bound of the job's
//          true peak.
// A job with no live process has no sample: it is finished for the caller (cgroup_finished.ts).
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readProcessJob } from '../labels/process-job.js';
import { parseProcStat } from '../parsers/proc-stat.js';
import { readPseudoFile } from '../util/pseudo-files.js';

export interface ProcessJobUsage {
  readonly jobid: string;
  readonly uid: number;
  /** Live processes of the job in this sample. */
  readonly processes: number;
  readonly cpu: { readonly user: number; readonly system: number };
  readonly memoryBytes: number;
  readonly memoryPeakBytes: number;
}

/** VmRSS and VmHWM of /proc/<pid>/status in bytes (0 for a process without memory, a zombie). */
export function parseStatusMemory(text: string): { rss: number; hwm: number } {
  const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readPseudoFile(path)).toString('latin1');
  } catch {
    return undefined; // the process is gone (or not ours to read)
  }
}

/** Samples the jobs' processes; keeps what must last across samples (see the header). */
export class ProcessJobTracker {
  /**
   * `<pid> <starttime>` → the job the process names, resolved once per process. Only a job found is
   * kept: a process seen between the scheduler's setuid and its exec of the job (same pid and start
   * time, not yet the job's environment) must be asked again at the next sample, or the job's whole
   * shell would be missed for its life. The cost is one lookup per sample for each process of a job
   * owner that names no job.
   */
  private readonly jobOfProcess = new Map<string, { jobid: string; uid: number }>();
  private readonly highest = new Map<string, { user: number; system: number; peak: number }>();

  constructor(
    private readonly procfs: string,
    private readonly userHz: number,
  ) {}

  /** One sample of `jobs` (job id → owner uid): a usage for each job with a live process of its owner. */
  async sample(jobs: ReadonlyMap<string, number>, signal?: AbortSignal): Promise<ProcessJobUsage[]> {
    const owners = new Set(jobs.values());
    let pids: string[];
    try {
      pids = (await readdir(this.procfs)).filter((name) => /^\d+$/.test(name));
    } catch {
      return [];
    }
    const sums = new Map<string, { uid: number; processes: number; ticks: [number, number, number, number]; rss: number; hwm: number }>();
    const seen = new Set<string>();
    for (const pid of pids) {
      signal?.throwIfAborted();
      const dir = join(this.procfs, pid);
      // The directory's owner (the process's effective uid) sorts out most processes with one stat.
      const owner = await stat(dir).then(
        (st) => st.uid,
        () => undefined,
      );
      if (owner === undefined || !owners.has(owner)) continue;
      const parsed = parseProcStat((await readText(join(dir, 'stat'))) ?? '');
      if (!parsed) continue;
      const key = `${pid} ${parsed.start}`;
      seen.add(key);
      let job = this.jobOfProcess.get(key);
      if (job === undefined) {
        const found = await readProcessJob(this.procfs, Number(pid));
        if (!found) continue;
        job = { jobid: found.jobid, uid: found.uid };
        this.jobOfProcess.set(key, job);
      }
      if (jobs.get(job.jobid) !== job.uid) continue;
      const memory = parseStatusMemory((await readText(join(dir, 'status'))) ?? '');
      const sum = sums.get(job.jobid) ?? { uid: job.uid, processes: 0, ticks: [0, 0, 0, 0] as [number, number, number, number], rss: 0, hwm: 0 };
      sum.processes += 1;
      const [utime, stime, cutime, cstime] = parsed.ticks;
      sum.ticks = [sum.ticks[0] + utime, sum.ticks[1] + stime, sum.ticks[2] + cutime, sum.ticks[3] + cstime];
      sum.rss += memory.rss;
      sum.hwm = Math.max(sum.hwm, memory.hwm);
      sums.set(job.jobid, sum);
    }
    for (const key of this.jobOfProcess.keys()) if (!seen.has(key)) this.jobOfProcess.delete(key);
    for (const id of this.highest.keys()) if (!jobs.has(id)) this.highest.delete(id);

    const usages: ProcessJobUsage[] = [];
    for (const [jobid, sum] of [...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const [utime, stime, cutime, cstime] = sum.ticks;
      const last = this.highest.get(jobid) ?? { user: 0, system: 0, peak: 0 };
      const now = {
        user: Math.max(last.user, (utime + cutime) / this.userHz),
        system: Math.max(last.system, (stime + cstime) / this.userHz),
        peak: Math.max(last.peak, sum.rss, sum.hwm),
      };
      this.highest.set(jobid, now);
      usages.push({ jobid, uid: sum.uid, processes: sum.processes, cpu: { user: now.user, system: now.system }, memoryBytes: sum.rss, memoryPeakBytes: now.peak });
    }
    return usages;
  }
}
