// Finds the Slurm job cgroups on this host under --path.sysfs (docs/gpu-and-cgroups.md). Layouts, as Slurm's
// cgroup plugins create them:
//   v2: fs/cgroup/system.slice/[<node>_]slurmstepd.scope/job_<id>/           (owner: see jobOwner)
//   v1: fs/cgroup/<controller>/slurm[_<node>]/uid_<uid>/job_<id>/           (cpuacct and memory trees)
// The v1 cpu accounting controller is mounted as `cpuacct`, `cpu,cpuacct` or `cpuacct,cpu`.
// Slurm 26.05's SLUID directory names (`s<13 chars>`) are not job ids and are not read yet.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sysPath, type Paths } from '../util/paths.js';

export interface CgroupJob {
  readonly jobid: string;
  readonly layout: 'v1' | 'v2';
  readonly uid: number;
  /** Directory holding cpu.stat (v2) or cpuacct.* (v1), when that controller has the job. */
  readonly cpuDir?: string;
  /** Directory holding memory.* files, when that controller has the job. */
  readonly memoryDir?: string;
}

export interface CgroupDiscovery {
  /** True when any Slurm cgroup root exists: the host runs Slurm with cgroups (even with no job now). */
  readonly slurm: boolean;
  readonly jobs: readonly CgroupJob[];
}

const SLURM_V1 = /^slurm(_.+)?$/;
const SCOPE_V2 = /^(.+_)?slurmstepd\.scope$/;
const JOB_DIR = /^job_(\d{1,20})$/;
const UID_DIR = /^uid_(\d{1,10})$/;
const CPU_CONTROLLERS = ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu'];

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return []; // this layout is not on the host
  }
}

/**
 * The uid of a v2 job: the owner of the job directory; Slurm creates it as root on many versions and
 * hands the step's `user` sub-tree to the job's user, so a root-owned job dir falls back to the owner
 * of the first step_*\/user directory.
 */
async function jobOwner(jobDir: string): Promise<number> {
  const own = (await stat(jobDir)).uid;
  if (own !== 0) return own;
  for (const step of await subdirs(jobDir)) {
    if (!step.startsWith('step_')) continue;
    try {
      const uid = (await stat(join(jobDir, step, 'user'))).uid;
      if (uid !== 0) return uid;
    } catch {
      // no user sub-tree in this step (extern, batch on some versions)
    }
  }
  return own;
}

async function findV2(root: string, jobs: Map<string, CgroupJob>): Promise<boolean> {
  let slurm = false;
  const slice = join(root, 'system.slice');
  for (const scope of (await subdirs(slice)).filter((n) => SCOPE_V2.test(n))) {
    slurm = true;
    for (const name of await subdirs(join(slice, scope))) {
      const id = JOB_DIR.exec(name)?.[1];
      if (!id || jobs.has(id)) continue;
      const dir = join(slice, scope, name);
      try {
        jobs.set(id, { jobid: id, layout: 'v2', uid: await jobOwner(dir), cpuDir: dir, memoryDir: dir });
      } catch {
        // the job ended between readdir and stat
      }
    }
  }
  return slurm;
}

/** Job dirs of one v1 controller tree: jobid → { uid, dir }. */
async function findV1Controller(controllerRoot: string): Promise<{ slurm: boolean; jobs: Map<string, { uid: number; dir: string }> }> {
  const jobs = new Map<string, { uid: number; dir: string }>();
  let slurm = false;
  for (const top of (await subdirs(controllerRoot)).filter((n) => SLURM_V1.test(n))) {
    slurm = true;
    for (const uidName of await subdirs(join(controllerRoot, top))) {
      const uid = UID_DIR.exec(uidName)?.[1];
      if (!uid) continue;
      for (const name of await subdirs(join(controllerRoot, top, uidName))) {
        const id = JOB_DIR.exec(name)?.[1];
        if (id && !jobs.has(id)) jobs.set(id, { uid: Number(uid), dir: join(controllerRoot, top, uidName, name) });
      }
    }
  }
  return { slurm, jobs };
}

async function findV1(root: string, jobs: Map<string, CgroupJob>): Promise<boolean> {
  let cpu = { slurm: false, jobs: new Map<string, { uid: number; dir: string }>() };
  for (const name of CPU_CONTROLLERS) {
    cpu = await findV1Controller(join(root, name));
    if (cpu.slurm) break;
  }
  const memory = await findV1Controller(join(root, 'memory'));
  for (const id of new Set([...cpu.jobs.keys(), ...memory.jobs.keys()])) {
    if (jobs.has(id)) continue;
    const c = cpu.jobs.get(id);
    const m = memory.jobs.get(id);
    const uid = c?.uid ?? m?.uid ?? 0;
    jobs.set(id, { jobid: id, layout: 'v1', uid, ...(c ? { cpuDir: c.dir } : {}), ...(m ? { memoryDir: m.dir } : {}) });
  }
  return cpu.slurm || memory.slurm;
}

/** Every Slurm job cgroup on the host (v2 first; a hybrid host reports each job once). */
export async function findCgroupJobs(paths: Paths): Promise<CgroupDiscovery> {
  const root = sysPath(paths, 'fs', 'cgroup');
  const jobs = new Map<string, CgroupJob>();
  const v2 = await findV2(root, jobs);
  const v1 = await findV1(root, jobs);
  const sorted = [...jobs.values()].sort((a, b) => Number(BigInt(a.jobid) - BigInt(b.jobid)) || 0);
  return { slurm: v1 || v2, jobs: sorted };
}
