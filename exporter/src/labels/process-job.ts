// Which batch job a process belongs to, and whose it is: the one resolver behind the profiler's job
// claim checks (profiler/job-verifier.ts), the GPU collector's process → job map and the cgroup
// collector's job owners. Evidence, strongest first:
//   1. the process's cgroup (/proc/<pid>/cgroup): a scheduler job cgroup is created and entered by
//      the scheduler's daemon, never chosen by the process, so it names the job for certain;
//   2. its environment (/proc/<pid>/environ): any process can set SLURM_JOB_ID itself, so this is
//      used only where the cgroup names no job (a scheduler without job cgroups, a login shell).
// The environment is kept as bytes and read as UTF-8 (Flux's `ƒ` is two bytes). Owners are real uids from /proc/<pid>/status, the kernel's view; directory owners are not evidence
// (Slurm's cgroup/v2 plugin creates every job directory as root).
import { join } from 'node:path';
import { readPseudoFile } from '../sources/pseudo-files.js';
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
  readonly source: 'cgroup' | 'environ';
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

/** The job and owner of `pid` read from <procfs>, or undefined when it is in no job (or gone). */
export async function readProcessJob(procfs: string, pid: number): Promise<(ProcessJob & { readonly uid: number }) | undefined> {
  const dir = join(procfs, String(pid));
  const [cgroup, environ, uid] = await Promise.all([readText(join(dir, 'cgroup')), readBytes(join(dir, 'environ')), processUid(procfs, pid)]);
  if (uid === undefined) return undefined;
  const job = jobOfProcess({ ...(cgroup !== undefined ? { cgroup } : {}), ...(environ !== undefined ? { environ } : {}), uid });
  return job === undefined ? undefined : { ...job, uid };
}
