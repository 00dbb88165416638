// Which batch job a process belongs to, and whose it is: the one resolver behind the profiler's job
// claim checks (profiler/job-verifier.ts), the GPU collector's process → job map and the cgroup
// collector's job owners. Evidence, strongest first:
//   1. kernel evidence, which the process cannot choose and which alone names a job's owner:
//      a. its cgroup (/proc/<pid>/cgroup): a scheduler job cgroup is created and entered by the
//         scheduler's daemon, never chosen by the process, so it names the job for certain;
//      b. without job cgroups (Slurm's proctrack/linuxproc): descent from the job's step daemon, a
//         root-owned process titled `slurmstepd: [<id>.<step>]` (a user can title a process so, but
//         not make it root's, and cannot adopt another user's processes);
//   2. its environment (/proc/<pid>/environ): any process can set SLURM_JOB_ID itself, so this is a
//      claim, never proof. Callers accept it only where something root wrote backs it (the prolog's
//      job spool naming the process's uid as the job's owner) or for the claiming uid alone.
// The environment is kept as bytes and read as UTF-8 (Flux's `ƒ` is two bytes). Owners are real uids from /proc/<pid>/status, the kernel's view; directory owners are not evidence
// (Slurm's cgroup/v2 plugin creates every job directory as root).
import { join } from 'node:path';
import { parseProcStat } from '../parsers/proc-stat.js';
import { readPseudoFile, readPseudoFileSync } from '../util/pseudo-files.js';
import { canonicalFluxJobId } from './flux-jobid.js';
import { JOBID_TEXT, layoutJobId } from './job-cgroup-layouts.js';

export { JOBID_TEXT, PBS_JOBS_PARENT, SLURM_JOB_DIR } from './job-cgroup-layouts.js';

/** The scheduler variables that name a job, first found wins: Slurm, PBS Pro/OpenPBS, LSF, Grid Engine, Flux. */
export const JOBID_VARIABLES = ['SLURM_JOB_ID', 'PBS_JOBID', 'LSB_JOBID', 'JOB_ID', 'FLUX_JOB_ID'] as const;

/**
 * Job ids named by the scheduler cgroups in a /proc/<pid>/cgroup text (one line per hierarchy), in the
 * root-anchored layouts of job-cgroup-layouts.ts. `uid` is the process's real uid: Flux's unit
 * cgroups count only with it (a user can name units of their own systemd manager freely).
 */
export function cgroupJobIds(cgroup: string, uid?: number): string[] {
  const ids = new Set<string>();
  for (const line of cgroup.split('\n')) {
    const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
    if (!path.startsWith('/')) continue;
    const id = layoutJobId(path.split('/'), uid);
    if (id !== undefined) ids.add(id);
  }
  return [...ids];
}

/**
 * A job id as jobio labels it, from the value of one scheduler variable: Flux's ids in their ASCII F58
 * spelling (whatever encoding FLUX_JOB_ID holds), every other id as it is; undefined when malformed.
 */
export function canonicalJobId(variable: string, value: string): string | undefined {
  if (variable === 'FLUX_JOB_ID') return canonicalFluxJobId(value);
  return JOBID_TEXT.test(value) ? value : undefined;
}

/** The value of `name` in a NUL-separated environ block, or undefined. */
export function environValue(environ: Buffer | string, name: string): string | undefined {
  const prefix = `${name}=`;
  const text = typeof environ === 'string' ? environ : environ.toString('utf8');
  for (const entry of text.split('\0')) if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  return undefined;
}

/** The job an environment names: the first scheduler variable set to a well-formed id. */
export function environJobId(environ: Buffer | string): string | undefined {
  for (const name of JOBID_VARIABLES) {
    const value = environValue(environ, name);
    if (value !== undefined) return canonicalJobId(name, value);
  }
  return undefined;
}

/** What /proc said about a process: either text may be missing (gone, or not ours to read). */
export interface ProcessEvidence {
  readonly cgroup?: string;
  readonly environ?: Buffer | string;
  /** The process's real uid, where known (needed for Flux's unit cgroups). */
  readonly uid?: number;
}

export interface ProcessJob {
  readonly jobid: string;
  /** cgroup and step are kernel evidence; environ is the process's own claim. */
  readonly source: 'cgroup' | 'step' | 'environ';
}

/** Ancestors looked at for a step daemon (process trees of jobs are shallow; a loop cannot hang). */
const MAX_ANCESTRY = 64;

function readSyncOrUndefined(path: string): string | undefined {
  try {
    return readPseudoFileSync(path).toString('utf8');
  } catch {
    return undefined; // gone, not ours to read, or not a regular file
  }
}

/**
 * The job of the nearest root-owned `slurmstepd: [<id>.<step>]` ancestor of a live process, if any.
 * Synchronous: the profiler's claim checks keep one process's frames in order without a queue.
 */
export function stepDaemonJob(procfs: string, pid: number): string | undefined {
  return stepDaemon(procfs, pid)?.jobid;
}

/** The job of `pid` if it is a root-owned step daemon (`slurmstepd: [<id>.<step>]`). */
function stepDaemonOf(procfs: string, pid: number): string | undefined {
  const title = readSyncOrUndefined(join(procfs, String(pid), 'cmdline'));
  const match = title ? /^slurmstepd: \[([^.\]\s]+)\.[^\]]*\]/.exec(title) : null;
  if (!match?.[1]) return undefined;
  const status = readSyncOrUndefined(join(procfs, String(pid), 'status')) ?? '';
  return /^Uid:\s+0\s/m.test(status) ? match[1] : undefined;
}

/** Whether the step daemon `pid` of `jobid` is still there (the job's steps still run on this host). */
export function stepDaemonAlive(procfs: string, pid: number, jobid: string): boolean {
  return stepDaemonOf(procfs, pid) === jobid;
}

/** The nearest root-owned step daemon ancestor of a live process: its job and its pid. */
export function stepDaemon(procfs: string, pid: number): { jobid: string; pid: number } | undefined {
  let current = pid;
  for (let depth = 0; depth < MAX_ANCESTRY; depth++) {
    const stat = readSyncOrUndefined(join(procfs, String(current), 'stat'));
    const parent = stat === undefined ? undefined : parseProcStat(stat)?.ppid;
    if (parent === undefined || parent === 0 || parent === current) return undefined;
    const jobid = stepDaemonOf(procfs, parent);
    if (jobid !== undefined) return { jobid, pid: parent };
    current = parent;
  }
  return undefined;
}

/**
 * The jobs kernel evidence puts `pid` in: those its cgroup text names (read by the caller, maybe
 * earlier, while the process was alive), else its step daemon's; [] when there is none.
 */
export function kernelJobIds(procfs: string, pid: number, cgroup: string | undefined, uid?: number): string[] {
  const ids = cgroup === undefined ? [] : cgroupJobIds(cgroup, uid);
  if (ids.length > 0) return ids;
  const step = stepDaemonJob(procfs, pid);
  return step === undefined ? [] : [step];
}

/** The job of a process from its evidence, cgroup first; undefined when it names none. */
export function jobOfProcess(evidence: ProcessEvidence): ProcessJob | undefined {
  const fromCgroup = evidence.cgroup === undefined ? undefined : cgroupJobIds(evidence.cgroup, evidence.uid)[0];
  if (fromCgroup !== undefined) return { jobid: fromCgroup, source: 'cgroup' };
  const fromEnviron = evidence.environ === undefined ? undefined : environJobId(evidence.environ);
  return fromEnviron === undefined ? undefined : { jobid: fromEnviron, source: 'environ' };
}

async function readBytes(path: string): Promise<Buffer | undefined> {
  try {
    // Non-blocking, regular files only: a FIFO planted under a fake --path.procfs must not hang us.
    return await readPseudoFile(path);
  } catch {
    return undefined; // gone, not ours to read, or not a regular file
  }
}

async function readText(path: string): Promise<string | undefined> {
  return (await readBytes(path))?.toString('latin1');
}

/** The real uid of a process (`Uid:` line of /proc/<pid>/status), or undefined when it is gone. */
export async function processUid(procfs: string, pid: number): Promise<number | undefined> {
  const status = await readText(join(procfs, String(pid), 'status'));
  const uid = status === undefined ? undefined : /^Uid:\s+(\d+)/m.exec(status)?.[1];
  return uid === undefined ? undefined : Number(uid);
}

/**
 * The job and owner of `pid` read from <procfs>, or undefined when it is in no job (or gone). A job
 * with source `environ` is only the process's claim (see the header).
 */
export async function readProcessJob(procfs: string, pid: number): Promise<(ProcessJob & { readonly uid: number }) | undefined> {
  const dir = join(procfs, String(pid));
  const [cgroup, environ, uid] = await Promise.all([readText(join(dir, 'cgroup')), readBytes(join(dir, 'environ')), processUid(procfs, pid)]);
  if (uid === undefined) return undefined;
  const job = jobOfProcess({ ...(cgroup !== undefined ? { cgroup } : {}), ...(environ !== undefined ? { environ } : {}), uid });
  if (job?.source === 'cgroup') return { ...job, uid };
  const step = stepDaemonJob(procfs, pid);
  if (step !== undefined) return { jobid: step, source: 'step', uid };
  return job === undefined ? undefined : { ...job, uid };
}

/**
 * The job `pid` is credited to by the profiler's evidence rule: kernel evidence decides; the
 * environment's claim counts only when a root-written source (`owners`: job id → owner uid, the
 * prolog's job spool) gives that job to the process's own real uid. `refused`: a claim nothing backs
 * (a process outside any job that set SLURM_JOB_ID itself); undefined: no job at all.
 */
export async function readOwnedProcessJob(
  procfs: string,
  pid: number,
  owners: ReadonlyMap<string, number>,
): Promise<{ readonly job: ProcessJob & { readonly uid: number } } | { readonly refused: ProcessJob & { readonly uid: number } } | undefined> {
  const job = await readProcessJob(procfs, pid);
  if (job === undefined) return undefined;
  return job.source !== 'environ' || owners.get(job.jobid) === job.uid ? { job } : { refused: job };
}
