// Checks the job id a process claims against what the kernel says about that process, so one user
// cannot write counts into another user's job (docs/architecture.md "Wire format and trust"). The pid and uid come from the socket
// credentials; the claim comes from the frame. Evidence, strongest first:
//   1. kernel evidence, which alone makes a uid the job's owner:
//      a. /proc/<pid>/cgroup: a Slurm job cgroup (`.../job_<id>/...`, placed there by slurmd, not by
//         the process) must name the claimed id;
//      b. without job cgroups (proctrack/linuxproc): the process descends from the job's step daemon,
//         a root-owned process titled `slurmstepd: [<id>.<step>]` (a user can title a process so, but
//         not make it root's, and cannot adopt another user's processes);
//   2. /proc/<pid>/environ (the environment the process was started with): the claimed variable
//      must be set to the claimed id. Weak: any process can set SLURM_JOB_ID itself, so it never makes
//      an owner (else whoever claims a job first, a squatter, would own it and the real user's data
//      would be refused). It stands for the claiming uid alone, while no other uid owns the job;
//   3. neither readable (the process already exited, or the exporter may not read it): the claim is
//      accepted ('vouched') only if the same uid already proved membership of that job id (typically
//      the job's long-lived batch shell, verified through its start-up frame). Otherwise it is
//      refused ('unverified'): accepting it would let user A write into job B simply because B's own
//      processes had not been seen yet.
// Once kernel evidence names a job's owner, other uids' claims on it are refused; the process table
// re-checks its accepted processes against ownerOf(), so a squatter's earlier claim is revoked too.
// A kernel-proven owner is kept for the life of the job on this host (its cgroup directories, or its
// step daemon), not only while one of its processes is known: else, once the job's processes went
// quiet, a squatter's environment claim would stand under the job id again. And on a host where
// Slurm made a cgroup for the claimed job, an environment claim from a process outside it is refused
// before any of the job's own processes was seen (a v1 `uid_<uid>` parent even names the owner).
// The maps are pruned to the jobs still in the process table or still alive on the host
// (ProcessTable.expire), so they stay bounded; a job that is gone must prove itself again.
// The receiver thread of the addon reads cgroup and environ as a process's first frame arrives and
// hands them over with it (ProcEvidence), so a short-lived process is judged on what it was while
// alive even if JavaScript gets to its frame after it exited. Without that evidence, /proc is read now.
// Reads are synchronous on purpose: they happen once per process and job claim, take microseconds on
// procfs, and keep the frames of one process in order without a queue per process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anyExists, jobCgroupDirs, SlurmCgroups } from '../labels/job-cgroup-life.js';
import { JOBID_VARIABLES, canonicalJobId, cgroupJobIds, environValue, stepDaemon, stepDaemonAlive } from '../labels/process-job.js';

// The evidence rules are the one pid → job resolver's (labels/process-job.ts); re-exported for the
// profiler's own modules.
export { JOBID_VARIABLES, cgroupJobIds, environValue };

/**
 * - verified: the process's cgroup or environment backs the claim (or it claims no job);
 * - vouched: no evidence readable, but the same uid has a verified claim on the job: accepted;
 * - unverified: no evidence and no such claim: refused;
 * - mismatch: the evidence contradicts the claim: refused.
 */
export type Verdict = 'verified' | 'vouched' | 'unverified' | 'mismatch';

export interface JobVerifierOptions {
  /**
   * Accept every claim without looking (`jobio run`: its private socket, mode 0600 in a 0700
   * directory, is reachable only by the user's own processes, whose counts go only to that user's
   * own report; nobody else's job can be written into).
   */
  readonly trustClaims?: boolean;
  /**
   * The cgroup mount (<sysfs>/fs/cgroup): owners are kept while their job's cgroup exists, and a job
   * Slurm made a cgroup for here refuses environment claims from processes outside it.
   */
  readonly cgroupfs?: string;
}

/** A job's owner by kernel evidence, and where that evidence lives on (for as long as the job runs here). */
interface Owner {
  readonly uid: number;
  /** The job's cgroup directories. */
  readonly dirs: readonly string[];
  /** Its step daemon (no job cgroups). */
  readonly stepPid?: number;
}

type Evidence = { kind: 'kernel'; dirs: readonly string[]; stepPid?: number } | { kind: 'environ' | 'none' | 'mismatch' };

/**
 * What <procfs>/<pid> said when the receiver thread read the process's first frame (the addon's
 * `evidence`): used instead of reading /proc now, when the process may be gone.
 */
export interface ProcEvidence {
  readonly cgroup?: string;
  readonly environ?: Buffer;
  /** the target of <procfs>/<pid>/exe: the program's path (not job evidence: it names the program a reason is addressed to) */
  readonly exe?: string;
}

export interface JobClaim {
  readonly pid: number;
  readonly uid: number;
  readonly jobid: string;
  readonly source: string;
  readonly evidence?: ProcEvidence;
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** A job id in jobio's spelling (Flux: ASCII F58), or as given when it is no well-formed id. */
function spelled(variable: string, jobid: string): string {
  return canonicalJobId(variable, jobid) ?? jobid;
}

/** Whether an environment's value of `variable` names `jobid` (in any of the scheduler's spellings). */
function sameJob(variable: string, said: string | undefined, jobid: string): boolean {
  return said !== undefined && spelled(variable, said) === spelled(variable, jobid);
}

export class JobVerifier {
  /** Job id → uid proven by kernel evidence (cgroup or step daemon ancestry) to run it. */
  private readonly owners = new Map<string, Owner>();
  /** Job id → uids with a claim backed by their environment (vouches for their own later claims only). */
  private readonly claimants = new Map<string, Set<number>>();

  private readonly slurmCgroups: SlurmCgroups | undefined;

  constructor(
    private readonly procfs: string,
    private readonly options: JobVerifierOptions = {},
  ) {
    this.slurmCgroups = options.cgroupfs === undefined ? undefined : new SlurmCgroups(options.cgroupfs);
  }

  /** Jobs with a known owner (bounded by retainOnly). */
  get ownedJobs(): number {
    return this.owners.size;
  }

  /** The uid kernel evidence names as the job's, if any. */
  ownerOf(jobid: string): number | undefined {
    return this.owners.get(jobid)?.uid;
  }

  verify(claim: JobClaim): Verdict {
    if (claim.jobid === '') return 'verified'; // claims no job: nothing to protect
    if (this.options.trustClaims) return 'verified';
    if (!(JOBID_VARIABLES as readonly string[]).includes(claim.source)) return 'mismatch';
    const found = this.evidence(claim);
    const evidence = found.kind;
    if (evidence === 'mismatch') return 'mismatch';
    if (found.kind === 'kernel') {
      this.owners.set(claim.jobid, { uid: claim.uid, dirs: found.dirs, stepPid: found.stepPid });
      this.slurmCgroups?.learn(found.dirs);
      return 'verified';
    }
    if (evidence === 'environ' && !this.owners.has(claim.jobid)) {
      // The job has a cgroup here and the process is not in it: not one of the job's processes.
      const here = this.slurmCgroups?.here(claim.jobid);
      if (here?.uid !== undefined) this.owners.set(claim.jobid, { uid: here.uid, dirs: [here.dir] });
      else if (here) return 'mismatch';
    }
    const owner = this.owners.get(claim.jobid)?.uid;
    if (owner !== undefined && owner !== claim.uid) return 'mismatch';
    const claimants = this.claimants.get(claim.jobid);
    if (evidence === 'none') return owner === claim.uid || claimants?.has(claim.uid) ? 'vouched' : 'unverified';
    if (claimants) claimants.add(claim.uid);
    else this.claimants.set(claim.jobid, new Set([claim.uid]));
    return 'verified';
  }

  private evidence(claim: JobClaim): Evidence {
    const early = claim.evidence;
    const cgroup = early ? early.cgroup : readOrUndefined(join(this.procfs, String(claim.pid), 'cgroup'))?.toString('utf8');
    // Job cgroups, else the step daemon (the rule of labels/process-job.ts kernelJobIds, here with
    // where the evidence lives on). They name jobs in jobio's spelling (Flux: ASCII F58); the claim
    // carries the variable's own.
    const jobid = spelled(claim.source, claim.jobid);
    const ids = cgroup === undefined ? [] : cgroupJobIds(cgroup, claim.uid);
    if (ids.length > 0) {
      if (!ids.includes(jobid)) return { kind: 'mismatch' };
      const cgroupfs = this.options.cgroupfs;
      return { kind: 'kernel', dirs: cgroup === undefined || cgroupfs === undefined ? [] : jobCgroupDirs(cgroupfs, cgroup, jobid, claim.uid) };
    }
    const step = stepDaemon(this.procfs, claim.pid);
    if (step) return step.jobid === jobid ? { kind: 'kernel', dirs: [], stepPid: step.pid } : { kind: 'mismatch' };
    // Early evidence is taken as given even if the process is still there: it is what it was at start.
    const environ = early ? early.environ : readOrUndefined(join(this.procfs, String(claim.pid), 'environ'));
    // An empty environ means a zombie or kernel thread: no evidence either way.
    if (environ !== undefined && environ.length > 0) return { kind: sameJob(claim.source, environValue(environ, claim.source), claim.jobid) ? 'environ' : 'mismatch' };
    return { kind: 'none' };
  }

  /** Whether the kernel evidence of an owner is still there: the job's cgroup or its step daemon. */
  private lives(jobid: string, owner: Owner): boolean {
    return anyExists(owner.dirs) || (owner.stepPid !== undefined && stepDaemonAlive(this.procfs, owner.stepPid, jobid));
  }

  /**
   * Forget owners of jobs that ended on this host and claimants of jobs none of whose processes is
   * known any more (called with the job ids of the processes known), so the maps stay bounded.
   */
  retainOnly(alive: ReadonlySet<string>): void {
    for (const [id, owner] of this.owners) if (!alive.has(id) && !this.lives(id, owner)) this.owners.delete(id);
    for (const id of this.claimants.keys()) if (!alive.has(id)) this.claimants.delete(id);
  }
}
