// Finds the Slurm job cgroups on this host under --path.sysfs (docs/gpu-and-cgroups.md). Layouts, as Slurm's
// cgroup plugins create them:
//   v2: fs/cgroup/system.slice/[<node>_]slurmstepd.scope/job_<id>/           (owner: see jobOwner;
//       the job's processes are looked up under --path.procfs)
//   v1: fs/cgroup/<controller>/slurm[_<node>]/uid_<uid>/job_<id>/           (cpuacct and memory trees)
//   OpenPBS/PBS Pro cgroups hook: fs/cgroup/pbs_jobs.service/jobid/<id>/ (v2) and
//       fs/cgroup/<controller>/pbs_jobs.service/jobid/<id>/ (v1), id `<seq>.<server>`; owner from the
//       real uid of any process in the job's cgroups (docs/schedulers.md)
// The v1 cpu accounting controller is mounted as `cpuacct`, `cpu,cpuacct` or `cpuacct,cpu`.
// Slurm 26.05's SLUID directory names (`s<13 chars>`) are not job ids and are not read yet.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JOBID_TEXT, PBS_JOBS_PARENT, processUid, SLURM_JOB_DIR } from '../labels/process-job.js';
import { readPseudoFile } from './pseudo-files.js';
import { sysPath, type Paths } from '../util/paths.js';

export interface CgroupJob {
  readonly jobid: string;
  readonly layout: 'v1' | 'v2';
  /** The job's owner; undefined for a v2 job none of whose tasks has been seen yet. */
  readonly uid?: number;
  /** Directory holding cpu.stat (v2) or cpuacct.* (v1), when that controller has the job. */
  readonly cpuDir?: string;
  /** Directory holding memory.* files, when that controller has the job. */
  readonly memoryDir?: string;
}

export interface CgroupDiscovery {
  /** True when any scheduler's job cgroup root exists (Slurm or PBS): the host runs jobs in cgroups (even with no job now). */
  readonly slurm: boolean;
  readonly jobs: readonly CgroupJob[];
}

const SLURM_V1 = /^slurm(_.+)?$/;
const SCOPE_V2 = /^(.+_)?slurmstepd\.scope$/;
const UID_DIR = /^uid_(\d{1,10})$/;
const CPU_CONTROLLERS = ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu'];

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return []; // this layout is not on the host
  }
}

/** At most this many cgroups of one job are searched for its processes (steps × tasks on a big node). */
const MAX_OWNER_CGROUPS = 256;

/**
 * The uid of a v2 job: the real uid of a process in one of its `user` sub-trees
 * (`job_<id>/step_<s>/user[/task_<t>]`, where Slurm puts the job's own tasks; `step_<s>/slurm` holds
 * the root-owned slurmstepd). Slurm's cgroup/v2 plugin creates every directory as root, so directory
 * owners say nothing. Undefined while no task runs yet (between the job's start and its first step).
 */
async function jobOwner(jobDir: string, procfs: string, anyProcess = false): Promise<number | undefined> {
  let searched = 0;
  const visit = async (dir: string, inUser: boolean): Promise<number | undefined> => {
    if (++searched > MAX_OWNER_CGROUPS) return undefined;
    if (inUser) {
      for (const pid of await cgroupPids(dir)) {
        const uid = await processUid(procfs, pid);
        if (uid !== undefined) return uid;
      }
    }
    for (const name of await subdirs(dir)) {
      const uid = await visit(join(dir, name), inUser || name === 'user');
      if (uid !== undefined) return uid;
    }
    return undefined;
  };
  return visit(jobDir, anyProcess);
}

/** The pids in a cgroup's `cgroup.procs` (empty when there is none or it cannot be read). */
async function cgroupPids(dir: string): Promise<number[]> {
  try {
    const text = (await readPseudoFile(join(dir, 'cgroup.procs'))).toString('latin1');
    return text.split('\n').filter((l) => /^\d{1,10}$/.test(l)).map(Number);
  } catch {
    return [];
  }
}

async function findV2(root: string, procfs: string, jobs: Map<string, CgroupJob>, owners: OwnerCache): Promise<boolean> {
  let slurm = false;
  const slice = join(root, 'system.slice');
  for (const scope of (await subdirs(slice)).filter((n) => SCOPE_V2.test(n))) {
    slurm = true;
    for (const name of await subdirs(join(slice, scope))) {
      const id = SLURM_JOB_DIR.exec(name)?.[1];
      if (!id || jobs.has(id)) continue;
      const dir = join(slice, scope, name);
      // A job's owner never changes: found once, kept while the job's cgroup exists.
      const uid = owners.get(id) ?? (await jobOwner(dir, procfs));
      if (uid !== undefined) owners.set(id, uid);
      jobs.set(id, { jobid: id, layout: 'v2', ...(uid !== undefined ? { uid } : {}), cpuDir: dir, memoryDir: dir });
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
        const id = SLURM_JOB_DIR.exec(name)?.[1];
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

/**
 * PBS job cgroups (the hook puts only the job's own processes in them, so any process names the
 * owner): v2 when the cgroup root is a v2 hierarchy, else per v1 controller.
 */
async function findPbs(root: string, procfs: string, jobs: Map<string, CgroupJob>, owners: OwnerCache): Promise<boolean> {
  const parent = (base: string): string => join(base, ...PBS_JOBS_PARENT);
  const ids = async (base: string): Promise<string[]> => (await subdirs(parent(base))).filter((n) => JOBID_TEXT.test(n));
  const owner = async (id: string, dir: string): Promise<number | undefined> => {
    const uid = owners.get(id) ?? (await jobOwner(dir, procfs, true));
    if (uid !== undefined) owners.set(id, uid);
    return uid;
  };
  const v2 = await ids(root);
  let cpuBase: string | undefined;
  for (const name of CPU_CONTROLLERS) {
    if (await isDir(parent(join(root, name)))) {
      cpuBase = join(root, name);
      break;
    }
  }
  const memoryBase = join(root, 'memory');
  const v1 = new Set([...(cpuBase ? await ids(cpuBase) : []), ...(await ids(memoryBase))]);
  const found = (await isDir(parent(root))) || cpuBase !== undefined || (await isDir(parent(memoryBase)));
  for (const id of v2) {
    if (jobs.has(id)) continue;
    const dir = join(parent(root), id);
    const uid = await owner(id, dir);
    jobs.set(id, { jobid: id, layout: 'v2', ...(uid !== undefined ? { uid } : {}), cpuDir: dir, memoryDir: dir });
  }
  for (const id of v1) {
    if (jobs.has(id)) continue;
    const cpuDir = cpuBase && (await isDir(join(parent(cpuBase), id))) ? join(parent(cpuBase), id) : undefined;
    const memoryDir = (await isDir(join(parent(memoryBase), id))) ? join(parent(memoryBase), id) : undefined;
    const dir = cpuDir ?? memoryDir;
    if (dir === undefined) continue; // gone between the listing and now
    const uid = await owner(id, dir);
    jobs.set(id, { jobid: id, layout: 'v1', ...(uid !== undefined ? { uid } : {}), ...(cpuDir ? { cpuDir } : {}), ...(memoryDir ? { memoryDir } : {}) });
  }
  return found;
}

async function isDir(path: string): Promise<boolean> {
  try {
    await readdir(path);
    return true;
  } catch {
    return false;
  }
}

/** Owners of v2 jobs already found (job id → uid); pruned to the jobs still present. */
export type OwnerCache = Map<string, number>;

/**
 * Every Slurm job cgroup on the host (v2 first; a hybrid host reports each job once). `owners`
 * remembers v2 owners between calls, so a job's processes are looked up once, not every scrape.
 * Stops (throws) between layouts once `signal` aborts.
 */
export async function findCgroupJobs(paths: Paths, owners: OwnerCache = new Map(), signal?: AbortSignal): Promise<CgroupDiscovery> {
  const root = sysPath(paths, 'fs', 'cgroup');
  const jobs = new Map<string, CgroupJob>();
  const v2 = await findV2(root, paths.procfs, jobs, owners);
  signal?.throwIfAborted();
  const v1 = await findV1(root, jobs);
  signal?.throwIfAborted();
  const pbs = await findPbs(root, paths.procfs, jobs, owners);
  signal?.throwIfAborted();
  for (const id of owners.keys()) if (!jobs.has(id)) owners.delete(id);
  // Numeric order of Slurm ids; PBS ids (`<seq>.<server>`) by their numeric prefix, then text.
  const sorted = [...jobs.values()].sort((a, b) => a.jobid.localeCompare(b.jobid, 'en', { numeric: true }));
  return { slurm: v1 || v2 || pbs, jobs: sorted };
}
