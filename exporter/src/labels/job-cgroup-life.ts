// Where a job's cgroup lives on this host, so what kernel evidence proved about a job (its owner)
// lasts as long as the job does, not only as long as jobio knows one of its processes:
//   - jobCgroupDirs: the job's directories under the cgroup mount, from a /proc/<pid>/cgroup text
//     that named the job (one per hierarchy: v2 `0::/…`, v1 `<n>:<controllers>:/…`);
//   - SlurmCgroups.here: whether Slurm made a cgroup for a job on this host, even before any of its
//     processes was seen (v2: `<scope>/job_<id>`; v1: `<slurm top>/uid_<uid>/job_<id>`, whose uid
//     directory names the owner). The scopes are Slurm's default one and those seen in evidence; the v1
//     top directories are those seen in evidence and those found by listing the v1 hierarchies.
// Only root (slurmd) creates these directories (see job-cgroup-layouts.ts), so their existence is
// kernel-side fact, not a sender's word.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { layoutJobId, SLURM_JOB_DIR, SLURM_UID_DIR, SLURM_V1_TOP, SLURM_V2_SCOPE } from './job-cgroup-layouts.js';

/** The directories (absolute, under `cgroupfs`) of the job cgroups a cgroup text puts `jobid` in. */
export function jobCgroupDirs(cgroupfs: string, cgroup: string, jobid: string, uid?: number): string[] {
  const dirs: string[] = [];
  for (const line of cgroup.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second).replace(/^name=/, '');
    const elements = line.slice(second + 1).split('/');
    if (elements[0] !== '') continue;
    // The shortest prefix naming the job is the job's own directory (Flux units sit one level lower under app.slice).
    for (let k = 4; k <= Math.min(elements.length, 6); k++) {
      const prefix = elements.slice(0, k);
      if (layoutJobId(prefix, uid) !== jobid) continue;
      const path = prefix.join('/');
      if (controllers === '') dirs.push(join(cgroupfs, path), join(cgroupfs, 'unified', path));
      else dirs.push(join(cgroupfs, controllers, path));
      break;
    }
  }
  return dirs;
}

/** Whether any of a job's directories is still there. */
export function anyExists(dirs: readonly string[]): boolean {
  return dirs.some((dir) => existsSync(dir));
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

/** v1 hierarchies Slurm's cgroup plugins use (proctrack, task, jobacct_gather), mounted under the cgroup mount. */
const V1_CONTROLLERS = ['freezer', 'memory', 'cpuset', 'devices', 'cpuacct', 'cpu,cpuacct'] as const;
/** How often the v1 hierarchies are listed again for Slurm's top directories when a job is not found. */
const V1_RESCAN_MS = 1000;

/** Slurm's job cgroup parents on this host: v2 scopes and v1 top directories. */
export class SlurmCgroups {
  private readonly scopes = new Set<string>();
  private readonly v1Tops = new Set<string>();
  private v1ScannedAt = -Infinity;

  constructor(
    private readonly cgroupfs: string,
    private readonly now: () => number = Date.now,
  ) {
    this.scopes.add(join(cgroupfs, 'system.slice', 'slurmstepd.scope'));
  }

  /**
   * Finds v1 top directories (`slurm`, `slurm_<node>`) without waiting for evidence to name them: else
   * a fresh exporter would take a squatter's environment claim on a job whose cgroup is already there,
   * until one of the job's own processes was seen. Rate-limited: a flood of claims lists no more.
   */
  private scanV1Tops(): void {
    const t = this.now();
    if (t - this.v1ScannedAt < V1_RESCAN_MS) return;
    this.v1ScannedAt = t;
    for (const controller of V1_CONTROLLERS) {
      const root = join(this.cgroupfs, controller);
      for (const name of subdirs(root)) if (SLURM_V1_TOP.test(name)) this.v1Tops.add(join(root, name));
    }
  }

  /** Learns the parents of job directories found in evidence (other node names, v1 controllers). */
  learn(jobDirs: readonly string[]): void {
    for (const dir of jobDirs) {
      const name = dir.slice(dir.lastIndexOf('/') + 1);
      if (!SLURM_JOB_DIR.test(name)) continue;
      const parent = dirname(dir);
      const parentName = parent.slice(parent.lastIndexOf('/') + 1);
      if (SLURM_V2_SCOPE.test(parentName)) this.scopes.add(parent);
      else if (SLURM_UID_DIR.test(parentName) && SLURM_V1_TOP.test(dirname(parent).slice(dirname(parent).lastIndexOf('/') + 1))) this.v1Tops.add(dirname(parent));
    }
  }

  /**
   * Slurm's cgroup of `jobid` on this host, if there is one: its directory and, with v1, the uid its
   * parent directory names (slurmd makes `uid_<uid>` for the job's user).
   */
  here(jobid: string): { dir: string; uid?: number } | undefined {
    if (!/^\d{1,20}$/.test(jobid)) return undefined;
    for (const scope of this.scopes) {
      const dir = join(scope, `job_${jobid}`);
      if (existsSync(dir)) return { dir };
    }
    const known = this.inV1Tops(jobid);
    if (known !== undefined) return known;
    this.scanV1Tops();
    return this.inV1Tops(jobid);
  }

  private inV1Tops(jobid: string): { dir: string; uid: number } | undefined {
    for (const top of this.v1Tops) {
      for (const name of subdirs(top)) {
        const uid = SLURM_UID_DIR.exec(name)?.[1];
        const dir = join(top, name, `job_${jobid}`);
        if (uid !== undefined && existsSync(dir)) return { dir, uid: Number(uid) };
      }
    }
    return undefined;
  }
}
