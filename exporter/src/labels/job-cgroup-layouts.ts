// The job cgroup layouts of the batch systems jobio knows, as path patterns: one table shared by the
// pid → job resolver (process-job.ts, reading /proc/<pid>/cgroup) and the cgroup collector's job
// finder (sources/cgroup-jobs.ts, walking /sys/fs/cgroup), so both recognise the same directories.
// Every layout is anchored at the hierarchy root: only root (or the scheduler's privileged helper) can
// make or enter cgroups there, while any user can make cgroups of any name inside their own systemd
// user manager (`user@<uid>.service` is delegated), so a `job_999` further down proves nothing.
//   Slurm v1:  /slurm[_<node>]/uid_<uid>/job_<id>/…                    (each v1 controller)
//   Slurm v2:  /system.slice/[<node>_]slurmstepd.scope/job_<id>/…
//   OpenPBS:   /pbs_jobs.service/jobid/<seq>.<server>/…                (v1 controllers and v2)
//   LSF:       /lsf/<cluster>/job.<jobid>[.<index>.<time>]/…           (v1 controllers and v2)
//   Flux:      /user.slice/user-<U>.slice/user@<U>.service/[app.slice/](imp-)shell-<rank>-f<F58>.service
//              (sdexec units in the Flux owner's systemd user manager; see fluxUnitJob)
import { canonicalFluxJobId } from './flux-jobid.js';
import { DEFAULT_SYSTEM_UID_MAX } from './users.js';

/** A Slurm job cgroup directory: `job_<id>`. */
export const SLURM_JOB_DIR = /^job_(\d{1,20})$/;
/** Slurm's v1 top directory: `slurm`, or `slurm_<node>` with several slurmd per host. */
export const SLURM_V1_TOP = /^slurm(_.+)?$/;
/** Slurm's v2 scope: `slurmstepd.scope`, or `<node>_slurmstepd.scope`. */
export const SLURM_V2_SCOPE = /^(.+_)?slurmstepd\.scope$/;
/** Slurm's v1 per-user directory. */
export const SLURM_UID_DIR = /^uid_(\d{1,10})$/;

/** What a job id taken from an environment or a path may look like (no separators, no control characters). */
export const JOBID_TEXT = /^[0-9A-Za-z._\-[\]]{1,64}$/;

/** OpenPBS/PBS Pro cgroups hook: `pbs_jobs.service/jobid/<jobid>` below each v1 controller and the v2 root. */
export const PBS_JOBS_PARENT = ['pbs_jobs.service', 'jobid'] as const;

/** LSF's top directory; below it one directory per LSF cluster name. */
export const LSF_TOP = 'lsf';
/** An LSF cluster name as a directory. */
export const LSF_CLUSTER_DIR = /^[0-9A-Za-z._-]{1,64}$/;
/**
 * An LSF job directory, `job.<jobid>.<index>.<time>`: the job id is the first field, as LSB_JOBID
 * holds it (an array element may appear as `<jobid>[<index>]`, LSB_BATCH_JID's spelling).
 */
const LSF_JOB_DIR = /^job\.(\d{1,20}(?:\[\d{1,10}\])?)(?:\.\d{1,20})*$/;

/** The job id an LSF job directory name carries, or undefined. */
export function lsfJobId(name: string): string | undefined {
  return LSF_JOB_DIR.exec(name)?.[1];
}

/** A Flux sdexec job-shell unit: `shell-<rank>-f<F58>.service`, `imp-shell-…` for guests' jobs. */
const FLUX_UNIT = /^(?:imp-)?shell-\d{1,10}-(f[1-9A-HJ-NP-Za-km-z]{1,11})\.service$/;

/** The (canonical) Flux job id a unit name carries, or undefined. */
export function fluxUnitJobId(name: string): string | undefined {
  const f58 = FLUX_UNIT.exec(name)?.[1];
  return f58 === undefined ? undefined : canonicalFluxJobId(f58);
}

/**
 * Flux runs as a system account (the `flux` user): only the systemd managers of system accounts are
 * looked at for Flux units, so no ordinary user can make jobio read look-alike units of their own
 * (which also bounds what one user can cost the cgroup collector's walk).
 */
export const FLUX_OWNER_UID_MAX = DEFAULT_SYSTEM_UID_MAX;

/** `user-<U>.slice` / `user@<U>.service`: the systemd user manager of uid U. */
export const USER_SLICE = /^user-(\d{1,10})\.slice$/;
export const USER_MANAGER = /^user@(\d{1,10})\.service$/;

/**
 * The Flux job of a path `/user.slice/user-<U>.slice/user@<U>.service/[app.slice/]<unit>/…`, with the
 * manager's uid U, a system account (FLUX_OWNER_UID_MAX). Any user can name a unit of their own manager `shell-0-f….service`, so the unit is
 * evidence only for a process whose real uid is not U: moving a process into another user's manager
 * takes root (or Flux's IMP), while the job's own processes run as the job's user, not as Flux.
 */
export function fluxUnitJob(elements: readonly string[]): { jobid: string; managerUid: number } | undefined {
  if (elements[1] !== 'user.slice') return undefined;
  const sliceUid = USER_SLICE.exec(elements[2] ?? '')?.[1];
  const managerUid = USER_MANAGER.exec(elements[3] ?? '')?.[1];
  if (sliceUid === undefined || sliceUid !== managerUid || Number(managerUid) > FLUX_OWNER_UID_MAX) return undefined;
  const unit = elements[4] === 'app.slice' ? elements[5] : elements[4];
  const jobid = unit === undefined ? undefined : fluxUnitJobId(unit);
  return jobid === undefined ? undefined : { jobid, managerUid: Number(managerUid) };
}

/**
 * The job a cgroup path (split on `/`, elements[0] = '' for the root) names under one of the root-
 * anchored layouts above; Flux units need the process's real uid (`uid`), see fluxUnitJob.
 */
export function layoutJobId(elements: readonly string[], uid?: number): string | undefined {
  const [, first, second, third] = elements;
  if (first === undefined || second === undefined || third === undefined) return undefined;
  if (SLURM_V1_TOP.test(first) && SLURM_UID_DIR.test(second)) return SLURM_JOB_DIR.exec(third)?.[1];
  if (first === 'system.slice' && SLURM_V2_SCOPE.test(second)) return SLURM_JOB_DIR.exec(third)?.[1];
  if (first === PBS_JOBS_PARENT[0] && second === PBS_JOBS_PARENT[1]) return JOBID_TEXT.test(third) ? third : undefined;
  if (first === LSF_TOP && LSF_CLUSTER_DIR.test(second)) return lsfJobId(third);
  const flux = fluxUnitJob(elements);
  return flux !== undefined && uid !== undefined && uid !== flux.managerUid ? flux.jobid : undefined;
}

/**
 * The layouts above as whole-path ECMAScript patterns, for the profiler receiver's own thread, which
 * decides as it accepts a connection whether the peer runs in a job cgroup (it cannot call into
 * JavaScript there). Each is anchored at the hierarchy root and ends at a path element's end. The
 * Flux pattern's first capture group is the manager's uid, which the peer must not have; its digits
 * bound that uid by FLUX_OWNER_UID_MAX (999: up to three digits). Tested to agree with layoutJobId.
 */
export const JOB_CGROUP_PATH_PATTERNS: readonly string[] = [
  String.raw`^/slurm(?:_[^/]+)?/uid_\d{1,10}/job_\d{1,20}(?:/|$)`,
  String.raw`^/system\.slice/(?:[^/]+_)?slurmstepd\.scope/job_\d{1,20}(?:/|$)`,
  String.raw`^/pbs_jobs\.service/jobid/[0-9A-Za-z._\-\[\]]{1,64}(?:/|$)`,
  String.raw`^/lsf/[0-9A-Za-z._\-]{1,64}/job\.\d{1,20}(?:\[\d{1,10}\])?(?:\.\d{1,20})*(?:/|$)`,
  String.raw`^/user\.slice/user-(\d{1,${String(FLUX_OWNER_UID_MAX).length}})\.slice/user@\1\.service/(?:app\.slice/)?(?:imp-)?shell-\d{1,10}-f[1-9A-HJ-NP-Za-km-z]{1,11}\.service(?:/|$)`,
];
