// Which batch job a process belongs to, and whose it is: the one resolver behind the profiler's job
// claim checks (profiler/job-verifier.ts), the GPU collector's process → job map and the cgroup
// collector's job owners. Evidence, strongest first:
//   1. the process's cgroup (/proc/<pid>/cgroup): a scheduler job cgroup is created and entered by
//      the scheduler's daemon, never chosen by the process, so it names the job for certain;
//   2. its environment (/proc/<pid>/environ): any process can set SLURM_JOB_ID itself, so this is
//      used only where the cgroup names no job (a scheduler without job cgroups, a login shell).
// Owners are real uids from /proc/<pid>/status, the kernel's view; directory owners are not evidence
// (Slurm's cgroup/v2 plugin creates every job directory as root).
import { join } from 'node:path';
import { readPseudoFile } from '../sources/pseudo-files.js';

/** The scheduler variables that name a job, first found wins: Slurm, PBS Pro/OpenPBS, LSF, Grid Engine, Flux. */
export const JOBID_VARIABLES = ['SLURM_JOB_ID', 'PBS_JOBID', 'LSB_JOBID', 'JOB_ID', 'FLUX_JOB_ID'] as const;

/** A Slurm job cgroup directory: `job_<id>` (v1 `slurm/uid_<u>/job_<id>`, v2 `slurmstepd.scope/job_<id>`). */
export const SLURM_JOB_DIR = /^job_(\d{1,20})$/;

/** What a job id taken from an environment or a path may look like (no separators, no control characters). */
export const JOBID_TEXT = /^[0-9A-Za-z._\-[\]]{1,64}$/;

/**
 * OpenPBS/PBS Pro's cgroups hook: `pbs_jobs.service/jobid/<jobid>` below each v1 controller and the v2
 * root (the layout OpenPBS's own cgroups hook tests expect); the id is PBS's full `<seq>.<server>`.
 */
export const PBS_JOBS_PARENT = ['pbs_jobs.service', 'jobid'] as const;

/** The job id a cgroup path (its `/`-separated elements) names: Slurm `job_<id>`, or PBS `pbs_jobs.service/jobid/<id>`. */
function pathJobIds(elements: readonly string[]): string[] {
  const ids: string[] = [];
  elements.forEach((element, i) => {
    const slurm = SLURM_JOB_DIR.exec(element)?.[1];
    if (slurm !== undefined) ids.push(slurm);
    else if (i >= 2 && elements[i - 2] === PBS_JOBS_PARENT[0] && elements[i - 1] === PBS_JOBS_PARENT[1] && JOBID_TEXT.test(element)) ids.push(element);
  });
  return ids;
}

/** Job ids named by the scheduler cgroups in a /proc/<pid>/cgroup text (one line per hierarchy). */
export function cgroupJobIds(cgroup: string): string[] {
  const ids = new Set<string>();
  for (const line of cgroup.split('\n')) {
    const path = line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1);
    for (const id of pathJobIds(path.split('/'))) ids.add(id);
  }
  return [...ids];
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
    if (value !== undefined) return JOBID_TEXT.test(value) ? value : undefined;
  }
  return undefined;
}

/** What /proc said about a process: either text may be missing (gone, or not ours to read). */
export interface ProcessEvidence {
  readonly cgroup?: string;
  readonly environ?: Buffer | string;
}

export interface ProcessJob {
  readonly jobid: string;
  readonly source: 'cgroup' | 'environ';
}

/** The job of a process from its evidence, cgroup first; undefined when it names none. */
export function jobOfProcess(evidence: ProcessEvidence): ProcessJob | undefined {
  const fromCgroup = evidence.cgroup === undefined ? undefined : cgroupJobIds(evidence.cgroup)[0];
  if (fromCgroup !== undefined) return { jobid: fromCgroup, source: 'cgroup' };
  const fromEnviron = evidence.environ === undefined ? undefined : environJobId(evidence.environ);
  return fromEnviron === undefined ? undefined : { jobid: fromEnviron, source: 'environ' };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    // Non-blocking, regular files only: a FIFO planted under a fake --path.procfs must not hang us.
    return (await readPseudoFile(path)).toString('latin1');
  } catch {
    return undefined; // gone, not ours to read, or not a regular file
  }
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
  const [cgroup, environ, uid] = await Promise.all([readText(join(dir, 'cgroup')), readText(join(dir, 'environ')), processUid(procfs, pid)]);
  if (uid === undefined) return undefined;
  const job = jobOfProcess({ ...(cgroup !== undefined ? { cgroup } : {}), ...(environ !== undefined ? { environ } : {}) });
  return job === undefined ? undefined : { ...job, uid };
}
