// pid → Slurm job for the processes NVML lists on a GPU: SLURM_JOB_ID in /proc/<pid>/environ
// (readable by root or the process owner), else a `job_<id>` element of /proc/<pid>/cgroup
// (world-readable); the uid is the owner of /proc/<pid>. All under --path.procfs.
import { stat } from 'node:fs/promises';
import { readPseudoFile } from './pseudo-files.js';
import { join } from 'node:path';

export interface ProcessJob {
  readonly jobid: string;
  readonly uid: number;
}

const JOBID = /^[0-9A-Za-z._-]{1,64}$/;

export function jobFromEnviron(environ: string): string | undefined {
  for (const entry of environ.split('\0')) {
    if (entry.startsWith('SLURM_JOB_ID=')) {
      const id = entry.slice('SLURM_JOB_ID='.length);
      return JOBID.test(id) ? id : undefined;
    }
  }
  return undefined;
}

export function jobFromCgroup(cgroup: string): string | undefined {
  return /\/job_(\d{1,20})(?:\/|$)/m.exec(cgroup)?.[1];
}

async function text(path: string): Promise<string | undefined> {
  try {
    return (await readPseudoFile(path)).toString('latin1');
  } catch {
    return undefined; // gone, or not ours to read
  }
}

/** The job of `pid`, or undefined when it is in none (or has exited). */
export async function processJob(procfs: string, pid: number): Promise<ProcessJob | undefined> {
  const dir = join(procfs, String(pid));
  let uid: number;
  try {
    uid = (await stat(dir)).uid;
  } catch {
    return undefined;
  }
  const environ = await text(join(dir, 'environ'));
  const jobid = (environ !== undefined ? jobFromEnviron(environ) : undefined) ?? jobFromCgroup((await text(join(dir, 'cgroup'))) ?? '');
  return jobid ? { jobid, uid } : undefined;
}
