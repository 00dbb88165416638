// Finds the batch jobs' cgroups on this host under --path.sysfs (docs/gpu-and-cgroups.md,
// docs/schedulers.md), in the root-anchored layouts of labels/job-cgroup-layouts.ts:
//   Slurm v2: fs/cgroup/system.slice/[<node>_]slurmstepd.scope/job_<id>/   (owner: see jobOwner;
//       the job's processes are looked up under --path.procfs)
//   Slurm v1: fs/cgroup/<controller>/slurm[_<node>]/uid_<uid>/job_<id>/   (cpuacct and memory trees)
//   OpenPBS/PBS Pro cgroups hook: fs/cgroup/[<controller>/]pbs_jobs.service/jobid/<seq>.<server>/
//   LSF: fs/cgroup/[<controller>/]lsf/<cluster>/job.<jobid>.<index>.<time>/
//   Flux (v2, sdexec): fs/cgroup/user.slice/user-<U>.slice/user@<U>.service/[app.slice/](imp-)shell-<rank>-f<F58>.service/
// PBS, LSF and Flux owners: the real uid of a process in the job's cgroups (root and, for Flux, the
// unit manager's uid are passed over while a job process is there); directory owners are never used.
// The v1 cpu accounting controller is mounted as `cpuacct`, `cpu,cpuacct` or `cpuacct,cpu`.
// Slurm 26.05's SLUID directory names (`s<13 chars>`) are not job ids and are not read yet.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { processUid } from '../labels/process-job.js';
import {
  fluxUnitJobId,
  JOBID_TEXT,
  LSF_CLUSTER_DIR,
  LSF_TOP,
  lsfJobId,
  PBS_JOBS_PARENT,
  SLURM_JOB_DIR,
  SLURM_UID_DIR,
  SLURM_V1_TOP,
  SLURM_V2_SCOPE,
  FLUX_OWNER_UID_MAX,
  USER_SLICE,
} from '../labels/job-cgroup-layouts.js';
import { readPseudoFile } from '../util/pseudo-files.js';
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
  /** True when any scheduler's job cgroup root exists (Slurm, PBS, LSF; Flux once a job is found): the host runs jobs in cgroups (even with no job now). */
  readonly slurm: boolean;
  readonly jobs: readonly CgroupJob[];
}

const CPU_CONTROLLERS = ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu'];

async function subdirs(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
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
async function jobOwner(jobDir: string, procfs: string, anyProcess = false, passOver: (uid: number) => boolean = () => false): Promise<number | undefined> {
  let searched = 0;
  let passedOver: number | undefined;
  const visit = async (dir: string, inUser: boolean): Promise<number | undefined> => {
    if (++searched > MAX_OWNER_CGROUPS) return undefined;
    if (inUser) {
      for (const pid of await cgroupPids(dir)) {
        const uid = await processUid(procfs, pid);
        if (uid === undefined) continue;
        if (!passOver(uid)) return uid;
        passedOver ??= uid;
      }
    }
    for (const name of await subdirs(dir)) {
      const uid = await visit(join(dir, name), inUser || name === 'user');
      if (uid !== undefined) return uid;
    }
    return undefined;
  };
  return (await visit(jobDir, anyProcess)) ?? passedOver;
}

/** The pids in a cgroup's `cgroup.procs` (empty when there is none or it cannot be read). */
async function cgroupPids(dir: string): Promise<number[]> {
  try {
    const text = (await readPseudoFile(join(dir, 'cgroup.procs'))).toString('latin1');
    return text
      .split('\n')
      .filter((l) => /^\d{1,10}$/.test(l))
      .map(Number);
  } catch {
    return [];
  }
}

async function findV2(root: string, procfs: string, jobs: Map<string, CgroupJob>, owners: OwnerCache): Promise<boolean> {
  let slurm = false;
  const slice = join(root, 'system.slice');
  for (const scope of (await subdirs(slice)).filter((n) => SLURM_V2_SCOPE.test(n))) {
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
  for (const top of (await subdirs(controllerRoot)).filter((n) => SLURM_V1_TOP.test(n))) {
    slurm = true;
    for (const uidName of await subdirs(join(controllerRoot, top))) {
      const uid = SLURM_UID_DIR.exec(uidName)?.[1];
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

/** A layout rooted at the top of each hierarchy (PBS, LSF): where its jobs are below one base (a v1 controller or the v2 root). */
interface RootedLayout {
  /** True when the layout's top directory exists below `base`. */
  present(base: string): Promise<boolean>;
  /** Job id → job directory below `base`. */
  jobs(base: string): Promise<Map<string, string>>;
}

const PBS_LAYOUT: RootedLayout = {
  present: (base) => isDir(join(base, ...PBS_JOBS_PARENT)),
  async jobs(base) {
    const parent = join(base, ...PBS_JOBS_PARENT);
    return new Map((await subdirs(parent)).filter((n) => JOBID_TEXT.test(n)).map((n) => [n, join(parent, n)]));
  },
};

const LSF_LAYOUT: RootedLayout = {
  present: (base) => isDir(join(base, LSF_TOP)),
  async jobs(base) {
    const found = new Map<string, string>();
    for (const cluster of (await subdirs(join(base, LSF_TOP))).filter((n) => LSF_CLUSTER_DIR.test(n))) {
      for (const name of await subdirs(join(base, LSF_TOP, cluster))) {
        const id = lsfJobId(name);
        if (id !== undefined && !found.has(id)) found.set(id, join(base, LSF_TOP, cluster, name));
      }
    }
    return found;
  },
};

/**
 * The jobs of a root-anchored layout (the scheduler puts only the job's own processes in them, so a
 * process there names the owner; root's are passed over while a job process is there): v2 below the
 * cgroup root, else per v1 controller.
 */
async function findRooted(root: string, procfs: string, jobs: Map<string, CgroupJob>, owners: OwnerCache, layout: RootedLayout): Promise<boolean> {
  const owner = async (id: string, dir: string): Promise<number | undefined> => {
    const uid = owners.get(id) ?? (await jobOwner(dir, procfs, true, (u) => u === 0));
    if (uid !== undefined) owners.set(id, uid);
    return uid;
  };
  let cpuBase: string | undefined;
  for (const name of CPU_CONTROLLERS) {
    if (await layout.present(join(root, name))) {
      cpuBase = join(root, name);
      break;
    }
  }
  const memoryBase = join(root, 'memory');
  const found = (await layout.present(root)) || cpuBase !== undefined || (await layout.present(memoryBase));
  for (const [id, dir] of await layout.jobs(root)) {
    if (jobs.has(id)) continue;
    const uid = await owner(id, dir);
    jobs.set(id, { jobid: id, layout: 'v2', ...(uid !== undefined ? { uid } : {}), cpuDir: dir, memoryDir: dir });
  }
  const cpu = cpuBase ? await layout.jobs(cpuBase) : new Map<string, string>();
  const memory = await layout.jobs(memoryBase);
  for (const id of new Set([...cpu.keys(), ...memory.keys()])) {
    if (jobs.has(id)) continue;
    const cpuDir = cpu.get(id);
    const memoryDir = memory.get(id);
    const dir = cpuDir ?? memoryDir;
    if (dir === undefined) continue;
    const uid = await owner(id, dir);
    jobs.set(id, { jobid: id, layout: 'v1', ...(uid !== undefined ? { uid } : {}), ...(cpuDir ? { cpuDir } : {}), ...(memoryDir ? { memoryDir } : {}) });
  }
  return found;
}

/**
 * Flux jobs run by sdexec (v2): job-shell units in the systemd user manager of a system account (Flux's
 * owner; ordinary users' managers are not walked). A unit counts only once a
 * process in it runs as another uid than its manager (the job's user, put there by Flux's IMP), the
 * same proof the pid resolver asks for; any user can name a unit of their own manager like Flux's.
 */
async function findFlux(root: string, procfs: string, jobs: Map<string, CgroupJob>, owners: OwnerCache): Promise<boolean> {
  let found = false;
  const users = join(root, 'user.slice');
  for (const slice of await subdirs(users)) {
    const uid = USER_SLICE.exec(slice)?.[1];
    if (uid === undefined || Number(uid) > FLUX_OWNER_UID_MAX) continue; // Flux runs as a system account
    const manager = join(users, slice, `user@${uid}.service`);
    const units = [...(await subdirs(manager)).map((n) => join(manager, n)), ...(await subdirs(join(manager, 'app.slice'))).map((n) => join(manager, 'app.slice', n))];
    for (const dir of units) {
      const id = fluxUnitJobId(dir.slice(dir.lastIndexOf('/') + 1));
      if (id === undefined || jobs.has(id)) continue;
      const managerUid = Number(uid);
      const owner = owners.get(id) ?? (await jobOwner(dir, procfs, true, (u) => u === 0 || u === managerUid));
      if (owner === undefined || owner === managerUid) continue; // no job process seen: no proof
      owners.set(id, owner);
      found = true;
      jobs.set(id, { jobid: id, layout: 'v2', uid: owner, cpuDir: dir, memoryDir: dir });
    }
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
 * Every batch job cgroup on the host (v2 first; a hybrid host reports each job once). `owners`
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
  const pbs = await findRooted(root, paths.procfs, jobs, owners, PBS_LAYOUT);
  signal?.throwIfAborted();
  const lsf = await findRooted(root, paths.procfs, jobs, owners, LSF_LAYOUT);
  signal?.throwIfAborted();
  const flux = await findFlux(root, paths.procfs, jobs, owners);
  signal?.throwIfAborted();
  for (const id of owners.keys()) if (!jobs.has(id)) owners.delete(id);
  // Numeric order of Slurm and LSF ids; PBS ids (`<seq>.<server>`) by their numeric prefix, then text.
  const sorted = [...jobs.values()].sort((a, b) => a.jobid.localeCompare(b.jobid, 'en', { numeric: true }));
  return { slurm: v1 || v2 || pbs || lsf || flux, jobs: sorted };
}
