// Turns the cumulative frames of many processes into increments. One entry per process, keyed by the
// kernel-reported pid and the process start time from the frame (pids are reused; a forked child has
// its own start). Each entry keeps the latest accepted snapshot per mount; a new snapshot yields the
// difference, so a lost frame only delays counts and a repeated one adds nothing.
//
// First sight of a process (docs/architecture.md "Bounded cardinality": counters never jump): the profiler numbers every frame it
// sends or drops (`sequence` 0, 1, 2, ... taken before the send) and counts the drops
// (`dropped_frames` of a process frame: drops before that frame). So sequence - dropped_frames is the
// number of earlier frames that left the process. Zero: nothing of it can have been counted anywhere,
// the snapshot is credited in full. More: earlier frames were delivered — to this receiver before the
// entry expired, or to a receiver that has since restarted — so the snapshot is only a baseline:
// recorded, credited as zero, and only the differences from it count. The price is an undercount,
// never a double count: the I/O between the last delivered frame and the baseline is not counted.
//
// Counters are the sender's word, so they are held to what is physically possible (plausibility.ts):
// an increment the process's time budget cannot cover is rejected as `implausible`, a figure that
// went down as `counter_decrease` (no reset without a new process), and the snapshot stays at the last
// accepted one (an honest burst is credited with a later frame). The budget is per pid: a new entry
// for a pid the table knows (a new start time in the frame, i.e. a claimed restart) gets a fresh one
// only if the kernel's start time of that pid changed (pid reused); otherwise it goes on using the
// same budget, so restarting cannot add the same counts twice.
//
// Identity rules (docs/architecture.md "Wire format and trust"): pid/uid/gid come from the socket credentials, never from the frame;
// the job id claimed by the frame is checked by the JobVerifier, and a process whose claim fails has
// all its frames rejected as `job_mismatch` (contradicted) or `unverified_job` (no evidence either
// way and no verified claim of the same uid on that job by the end of a grace period, HeldSnapshot).
import { FLAG_EXEC, FLAG_FINAL, type WireComponent } from '../parsers/profiler-wire.js';
import type { MountRecord, ProcessRecord, ProfilerRecord } from '../parsers/profiler-record.js';
import { countersOf, delta, scalarDelta, type Counters } from './counters.js';
import { canonicalJobId } from '../labels/process-job.js';
import type { JobVerifier, ProcEvidence } from './job-verifier.js';
import { DEFAULT_CEILINGS, kernelStart, neededMs, RUNTIME_SLACK_MS, SLACK_MS, type Ceilings } from './plausibility.js';

export interface Credentials {
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /** /proc evidence captured by the receiver thread with the frame (first frame of a connection). */
  readonly evidence?: ProcEvidence;
}

export interface ProcessIdentity {
  readonly key: string;
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /** Verified (or vouched for by the same uid's verified claim) job id; '' when the process claims none. */
  readonly jobid: string;
  /** Kernel evidence (job cgroup, step daemon) names this uid as the job's owner (else: environment only). */
  readonly jobVerified?: boolean;
  /** The executable's base name, as the process reported it. */
  readonly exe: string;
  /** Its absolute path, as the receiver read it from /proc with the process's first frame; '' if unknown. */
  readonly exePath?: string;
  /**
   * The uid the kernel gave the process's latest frame, when it is not `uid` (the process changed
   * user after its first frame, e.g. a root job's child that became nobody). Its frames stay this
   * process's; a program it execs runs as that user and cannot reach `jobio run`'s private socket.
   */
  readonly senderUid?: number;
}

/** The identity with the kernel's uid of the latest frame noted when it differs from the first's. */
function withSender(identity: ProcessIdentity, uid: number): ProcessIdentity {
  const changed = uid !== identity.uid ? uid : undefined;
  if (changed === identity.senderUid) return identity;
  const { senderUid: _previous, ...rest } = identity;
  return changed === undefined ? rest : { ...rest, senderUid: changed };
}

/**
 * The path of the executable from the receiver's look at /proc, if it is the program the process
 * reports (the process may have exec'd another one by the time the receiver looked).
 */
export function exePathOf(evidence: ProcEvidence | undefined, reported: string): string {
  const path = evidence?.exe;
  if (path === undefined) return '';
  return namesReported(path, reported) ? path : '';
}

/** Is `path` absolute and its base name the one the process reports? */
function namesReported(path: string, reported: string): boolean {
  if (!path.startsWith('/')) return false;
  const base = path.slice(path.lastIndexOf('/') + 1);
  // the wire's field holds 63 bytes of the name
  return base === reported || (reported.length >= 63 && base.startsWith(reported));
}

/**
 * The path the process itself sent (read at its start-up), for a process the receiver could not look
 * at in /proc (gone before its first frame was read). A label for the hints only: it names the
 * program a reason is addressed to and proves nothing, so it is kept only when it agrees with the
 * reported name, and /proc's reading wins whenever there is one.
 */
export function claimedExePathOf(record: ProcessRecord): string {
  const path = record.exePath ?? '';
  // eslint-disable-next-line no-control-regex -- a claimed label is printed: no control characters
  return namesReported(path, record.exe) && !/[\x00-\x1f\x7f]/.test(path) ? path : '';
}

/** A process's frames are kept per mount and component (a component's calls come in frames of their own). */
const mountKeyOf = (record: MountRecord): string => (record.component !== undefined ? `${record.path}\0${record.component}` : record.path);

export interface MountInfo {
  readonly path: string;
  readonly fstype: string;
  readonly fsname: string;
  /** the library inside the process whose calls these are (absent: the program's own) */
  readonly component?: WireComponent;
}

export interface ProcessIncrement {
  readonly runtimeNs: number;
  readonly droppedFrames: number;
  readonly ignoredCalls: number;
  /** socket calls the library counted on `[network]` only, for lack of a slot for their peer address */
  readonly networkFolded: number;
  /** blind spots this frame revealed first in this process (io_uring or POSIX AIO: `async_io`; file mappings: `mmap_io`) */
  readonly unseenKinds?: readonly ('async_io' | 'mmap_io')[];
  /** length of the file mappings made since the process's last frame (bytes moved through them are unknown) */
  readonly unseenMmapBytes?: number;
}

/** What a frame reveals of a process's blind spots, against its previous frame. */
function unseenIncrement(now: ProcessRecord, prev: ProcessRecord | undefined): Pick<ProcessIncrement, 'unseenKinds' | 'unseenMmapBytes'> {
  const u = now.unseen;
  if (!u) return {};
  const p = prev?.unseen;
  const asyncNow = u.ioUringSetups + u.posixAioCalls > 0;
  const asyncBefore = (p?.ioUringSetups ?? 0) + (p?.posixAioCalls ?? 0) > 0;
  const kinds: ('async_io' | 'mmap_io')[] = [];
  if (asyncNow && !asyncBefore) kinds.push('async_io');
  if (u.mmapBytes > 0 && !((p?.mmapBytes ?? 0) > 0)) kinds.push('mmap_io');
  return { unseenKinds: kinds, unseenMmapBytes: scalarDelta(u.mmapBytes, p?.mmapBytes) };
}

/** Receives increments, in frame order. */
export interface AggregatorSink {
  mountDelta(id: ProcessIdentity, mount: MountInfo, increment: Counters, record: MountRecord): void;
  processDelta(id: ProcessIdentity, increment: ProcessIncrement, record: ProcessRecord): void;
  /** The process sent its last snapshot (exit, or exec replacing the image). */
  processEnded?(id: ProcessIdentity): void;
  /**
   * Kernel evidence names `uid` as the owner of `jobid` (first time, or a new owner): what other uids
   * credited to that job on their environment alone was invented (their claims are revoked).
   */
  jobOwnerKnown?(jobid: string, uid: number): void;
}

export type TableRejectReason =
  | 'job_mismatch'
  | 'unverified_job'
  | 'no_process'
  | 'stale'
  | 'too_many_processes'
  | 'too_many_mounts'
  | 'process_limit'
  | 'mount_limit'
  | 'user_mount_limit'
  | 'implausible'
  | 'counter_decrease'
  | 'evicted';
export const TABLE_REJECT_REASONS: readonly TableRejectReason[] = [
  'job_mismatch',
  'unverified_job',
  'no_process',
  'stale',
  'too_many_processes',
  'too_many_mounts',
  'process_limit',
  'mount_limit',
  'user_mount_limit',
  'implausible',
  'counter_decrease',
  'evicted',
];

/**
 * Distinct mount paths kept per process: the profiler has 64 mount slots (JOBIO_MAX_SLOTS), so an honest
 * process never sends more. A forged sender naming endless paths would otherwise grow an entry without
 * bound (the metric store caps the mount *labels* per job separately).
 */
export const MAX_MOUNTS_PER_PROCESS = 64;

/** Entries one uid may hold (the key's start time comes from the frame, so one process could make any number). */
export const DEFAULT_MAX_PROCESSES_PER_USER = 4096;

/**
 * Bounds across all uids (per-uid caps alone let each local user cost as much again). A mount entry
 * holds one snapshot (~3 KB), so the default total of 65,536 bounds them near 200 MB; one uid may
 * hold at most a quarter of it, so it takes four hostile users to fill it. Full bounds never starve a
 * kernel-proven job: a process whose uid the kernel names as its job's owner takes the room of the
 * entry without such proof heard from least recently (`evicted`, charged to that entry's uid; if the
 * evicted process speaks again it starts from a baseline, see the top of this file).
 */
export interface TableLimits {
  /** Process entries of all uids together ('process_limit' beyond). */
  readonly maxProcesses: number;
  /** Mount entries (one per process and mount path) of all uids together ('mount_limit' beyond). */
  readonly maxMountEntries: number;
  /** Mount entries of one uid ('user_mount_limit' beyond). */
  readonly maxMountEntriesPerUser: number;
}

export const DEFAULT_TABLE_LIMITS: TableLimits = { maxProcesses: 16384, maxMountEntries: 65536, maxMountEntriesPerUser: 16384 };

export interface TableOptions extends TableLimits, Ceilings {
  /** Where to read a process's kernel start time (<procfs>/<pid>/stat); none read without it. */
  readonly procfs?: string;
  /**
   * How long the frames of a claim that could not be checked are held (0: refused at once): if the
   * same uid's claim on the job is proven meanwhile, they are credited (see HeldSnapshot).
   */
  readonly unverifiedGraceMs?: number;
}

/** Default grace for unverifiable claims: a job's first processes and its batch shell start within it. */
export const DEFAULT_UNVERIFIED_GRACE_MS = 10_000;

/**
 * The frames of a process whose claim could not be checked (it was gone before its evidence was read)
 * while its uid has no proven claim on the job yet: a short-lived process of a job whose other
 * processes are not seen yet. Snapshots are cumulative, so only the latest process frame and the
 * latest frame per mount are kept; if the same uid's claim on the job is proven within the grace
 * period they are credited as the process's first snapshot, else the frames held are counted as
 * `unverified_job` (at the end of the grace, or when the entry goes).
 */
interface HeldSnapshot {
  readonly sinceMs: number;
  frames: number;
  process: ProcessRecord;
  cred: Credentials;
  readonly mounts: Map<string, MountRecord>;
}

/** Assumed age of a new process whose start time cannot be read (it already exited). */
const UNKNOWN_AGE_MS = 60_000;

/**
 * Per pid: the kernel's start time seen, and how far (receiver time) the accepted increments of its
 * processes have used up its life: I/O at the ceilings, and run time at one second per second.
 */
interface PidClock {
  ticks: string | undefined;
  ioUntilMs: number;
  runtimeUntilMs: number;
}

interface Entry {
  identity: ProcessIdentity;
  accepted: boolean;
  /** Why frames are rejected when not accepted. */
  refusal: 'job_mismatch' | 'unverified_job';
  lastProcess: ProcessRecord | undefined;
  lastSequence: bigint;
  mounts: Map<string, Counters>;
  /** Mount frames still expected for the current snapshot. */
  mountsPending: number;
  /**
   * Baseline mode: a mount not yet in `mounts` is recorded and credited as zero (its earlier totals
   * may already have been counted). Ends with the first complete snapshot (every mount frame seen).
   */
  baseline: boolean;
  ending: boolean;
  lastSeenMs: number;
  held?: HeldSnapshot;
}

export class ProcessTable {
  private readonly entries = new Map<string, Entry>();
  /** Entries per uid, for the per-user cap. */
  private readonly perUid = new Map<number, number>();
  /** Mount entries per uid and in all, for the mount bounds. */
  private readonly mountsPerUid = new Map<number, number>();
  private mountTotal = 0;
  private readonly pidClocks = new Map<number, PidClock>();
  /** Keys of the entries holding frames, by `<jobid>/<uid>` (what a proven claim releases). */
  private readonly heldBy = new Map<string, Set<string>>();
  private readonly limits: TableOptions;

  constructor(
    private readonly verifier: JobVerifier,
    private readonly sink: AggregatorSink,
    /** Called for every rejected frame, with the sender's uid (from the socket credentials). */
    private readonly onReject: (reason: TableRejectReason, uid: number) => void,
    private readonly now: () => number = Date.now,
    private readonly maxPerUser: number = DEFAULT_MAX_PROCESSES_PER_USER,
    limits: Partial<TableOptions> = {},
  ) {
    this.limits = { ...DEFAULT_TABLE_LIMITS, ...DEFAULT_CEILINGS, unverifiedGraceMs: DEFAULT_UNVERIFIED_GRACE_MS, ...limits };
  }

  /**
   * The budget of a new entry's pid: a pid already seen with the same kernel start time (or with none
   * readable either time) is the same process and keeps its budget; a new process starts one at its
   * start by the kernel's clock.
   */
  private clockFor(pid: number): PidClock {
    const start = this.limits.procfs ? kernelStart(this.limits.procfs, pid) : undefined;
    const clock = this.pidClocks.get(pid);
    if (clock && clock.ticks === start?.ticks) return clock;
    const from = this.now() - (start ? start.ageMs : UNKNOWN_AGE_MS);
    const fresh = { ticks: start?.ticks, ioUntilMs: from, runtimeUntilMs: from };
    this.pidClocks.set(pid, fresh);
    return fresh;
  }

  /** The budget of a pid with an entry (made at the entry's creation; /proc is read only then). */
  private clockOf(pid: number): PidClock {
    return this.pidClocks.get(pid) ?? this.clockFor(pid);
  }

  /** What is left of a budget now (ms), with `slack` ms of it allowed ahead of the clock. */
  private leftMs(until: number, slack: number): number {
    return this.now() + slack - until;
  }

  private remove(key: string, entry: Entry): void {
    this.dropHeld(key, entry);
    this.entries.delete(key);
    this.forgetMounts(entry);
    const n = (this.perUid.get(entry.identity.uid) ?? 1) - 1;
    if (n > 0) this.perUid.set(entry.identity.uid, n);
    else this.perUid.delete(entry.identity.uid);
  }

  /** Drops an entry's mount snapshots and their share of the mount bounds. */
  private forgetMounts(entry: Entry): void {
    this.chargeMounts(entry.identity.uid, -entry.mounts.size);
    entry.mounts.clear();
  }

  /** Why a new mount entry of `entry` would be over a bound, or undefined if it fits (a proven job's entry makes room). */
  private mountRoom(entry: Entry): TableRejectReason | undefined {
    if ((this.mountsPerUid.get(entry.identity.uid) ?? 0) >= this.limits.maxMountEntriesPerUser) return 'user_mount_limit';
    if (this.mountTotal >= this.limits.maxMountEntries && !(entry.identity.jobVerified && this.evictUnproven(true))) return 'mount_limit';
    return undefined;
  }

  /**
   * Makes room for a kernel-proven job: forgets the entry without such proof heard from least
   * recently (holding mount entries, with `mounts`); false if there is none.
   */
  private evictUnproven(mounts: boolean): boolean {
    let oldest: [string, Entry] | undefined;
    for (const item of this.entries) {
      const e = item[1];
      if (e.identity.jobVerified || (mounts && e.mounts.size === 0)) continue;
      if (!oldest || e.lastSeenMs < oldest[1].lastSeenMs) oldest = item;
    }
    if (!oldest) return false;
    this.remove(oldest[0], oldest[1]);
    this.onReject('evicted', oldest[1].identity.uid);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Mount snapshots held, over all processes. */
  get mountEntries(): number {
    return this.mountTotal;
  }

  handle(record: ProfilerRecord, cred: Credentials): void {
    const key = `${cred.pid}/${record.header.startNs}`;
    const entry = this.entries.get(key);
    if (entry && record.header.sequence <= entry.lastSequence) return this.onReject('stale', cred.uid);
    if (record.kind === 'process') this.handleProcess(key, entry, record, cred);
    else this.handleMount(key, entry, record, cred.uid);
  }

  private handleProcess(key: string, existing: Entry | undefined, record: ProcessRecord, cred: Credentials, replay = false): void {
    let entry = existing;
    // A claim is judged once per process and job id: a refused claim stays refused (once the process
    // has exited its /proc entry is gone, and a second look would find no evidence against it).
    if (!entry && (this.perUid.get(cred.uid) ?? 0) >= this.maxPerUser) return this.onReject('too_many_processes', cred.uid);
    // The job as jobio labels it: Flux's id in its ASCII F58 spelling, whichever FLUX_JOB_ID held.
    const jobid = canonicalJobId(record.jobidSource, record.jobid) ?? record.jobid;
    const judged = !entry || entry.identity.jobid !== jobid;
    if (!entry || entry.identity.jobid !== jobid) {
      const ownerBefore = this.verifier.ownerOf(jobid);
      const verdict = this.verifier.verify({ pid: cred.pid, uid: cred.uid, jobid, source: record.jobidSource, evidence: cred.evidence });
      const owner = this.verifier.ownerOf(jobid);
      if (owner !== undefined && owner !== ownerBefore) this.ownerKnown(jobid, owner);
      const proven = verdict === 'verified' && jobid !== '' && owner === cred.uid;
      if (!entry && this.entries.size >= this.limits.maxProcesses && !(proven && this.evictUnproven(false))) return this.onReject('process_limit', cred.uid);
      const exePath = exePathOf(cred.evidence, record.exe) || entry?.identity.exePath || claimedExePathOf(record);
      const identity: ProcessIdentity = { key, pid: cred.pid, uid: cred.uid, gid: cred.gid, jobid, exe: record.exe, exePath, ...(proven ? { jobVerified: true } : {}) };
      if (!entry) {
        const deliveredBefore = record.header.sequence - BigInt(record.droppedFrames);
        entry = {
          identity,
          accepted: false,
          refusal: 'job_mismatch',
          lastProcess: undefined,
          lastSequence: -1n,
          mounts: new Map(),
          mountsPending: 0,
          baseline: deliveredBefore > 0n,
          ending: false,
          lastSeenMs: 0,
        };
        this.clockFor(cred.pid);
        this.entries.set(key, entry);
        this.perUid.set(cred.uid, (this.perUid.get(cred.uid) ?? 0) + 1);
      } else if (entry.identity.jobid !== jobid) {
        // A new claim: the figures already credited stay with the old job; the new one gets what the
        // process does from now on (the snapshots stay the reference: its history is not counted twice).
        entry.identity = identity;
      }
      entry.accepted = verdict === 'verified' || verdict === 'vouched';
      entry.refusal = verdict === 'unverified' ? 'unverified_job' : 'job_mismatch';
      this.dropHeld(key, entry);
      if (entry.accepted && jobid !== '') this.release(jobid, cred.uid);
    }
    this.recheckOwner(entry);
    entry.identity = withSender(entry.identity, cred.uid);
    // The previous snapshot arrived whole: every mount with earlier activity is known, baseline over.
    // (Not while frames are held, nor at their replay: nothing was recorded from them yet.)
    if (entry.baseline && existing && entry.mountsPending === 0 && !entry.held && !replay) entry.baseline = false;
    entry.lastSequence = record.header.sequence;
    entry.lastSeenMs = this.now();
    entry.mountsPending = record.mountCount;
    entry.ending = (record.header.flags & (FLAG_FINAL | FLAG_EXEC)) !== 0;
    if (!entry.accepted) {
      if (!this.hold(key, entry, record, cred, judged)) this.onReject(entry.refusal, cred.uid);
    } else {
      const prev = entry.lastProcess ?? (entry.baseline ? record : undefined);
      // Run time grows at most one second per second of the process's life; dropped frames and ignored
      // calls at most at the calls ceiling over that time. Beyond: clamped, and counted.
      const clock = this.clockOf(cred.pid);
      const leftMs = Math.max(0, this.leftMs(clock.runtimeUntilMs, RUNTIME_SLACK_MS));
      const perLife = (leftMs / 1000) * this.limits.callsPerSecond;
      const runtimeNs = scalarDelta(record.runtimeNs, prev?.runtimeNs);
      const droppedFrames = scalarDelta(record.droppedFrames, prev?.droppedFrames);
      const ignoredCalls = scalarDelta(record.ignoredCalls, prev?.ignoredCalls);
      const networkFolded = scalarDelta(record.networkFolded ?? 0, prev?.networkFolded ?? 0);
      const unseen = unseenIncrement(record, prev);
      const bounded = {
        runtimeNs: Math.min(runtimeNs, leftMs * 1e6),
        droppedFrames: Math.min(droppedFrames, perLife),
        ignoredCalls: Math.min(ignoredCalls, perLife),
        networkFolded: Math.min(networkFolded, perLife),
        ...unseen,
        // a process maps at most its address space (2^48 bytes) per call, at most the calls ceiling's calls
        ...(unseen.unseenMmapBytes !== undefined ? { unseenMmapBytes: Math.min(unseen.unseenMmapBytes, perLife * 2 ** 48) } : {}),
      };
      if (bounded.runtimeNs !== runtimeNs || bounded.droppedFrames !== droppedFrames || bounded.ignoredCalls !== ignoredCalls || bounded.networkFolded !== networkFolded)
        this.onReject('implausible', cred.uid);
      clock.runtimeUntilMs += bounded.runtimeNs / 1e6;
      this.sink.processDelta(entry.identity, bounded, record);
      // The highest figures stay the reference, so a drop and a rise again add nothing twice.
      entry.lastProcess = prev
        ? {
            ...record,
            runtimeNs: Math.max(record.runtimeNs, prev.runtimeNs),
            droppedFrames: Math.max(record.droppedFrames, prev.droppedFrames),
            ignoredCalls: Math.max(record.ignoredCalls, prev.ignoredCalls),
            networkFolded: Math.max(record.networkFolded ?? 0, prev.networkFolded ?? 0),
          }
        : record;
    }
    this.maybeEnd(key, entry);
  }

  private handleMount(key: string, entry: Entry | undefined, record: MountRecord, uid: number): void {
    if (!entry) return this.onReject('no_process', uid);
    entry.lastSequence = record.header.sequence;
    entry.lastSeenMs = this.now();
    if (entry.mountsPending > 0) entry.mountsPending--;
    this.recheckOwner(entry);
    if (!entry.accepted) {
      if (!this.holdMount(entry, record)) this.onReject(entry.refusal, uid);
    } else {
      const mountKey = mountKeyOf(record);
      const known = entry.mounts.get(mountKey);
      const refusal = known ? undefined : entry.mounts.size >= MAX_MOUNTS_PER_PROCESS ? 'too_many_mounts' : this.mountRoom(entry);
      const current = countersOf(record);
      const increment = refusal ? undefined : delta(current, known ?? (entry.baseline ? current : undefined));
      const clock = this.clockOf(entry.identity.pid);
      const needMs = increment ? neededMs(increment, this.limits) : 0;
      const reason = refusal ?? (!increment ? 'counter_decrease' : !(needMs <= this.leftMs(clock.ioUntilMs, SLACK_MS)) ? 'implausible' : undefined);
      if (reason || !increment) {
        // The snapshot stays the last accepted one: an honest burst is credited with a later frame.
        this.onReject(reason ?? 'implausible', uid);
      } else {
        if (!known) this.chargeMounts(entry.identity.uid, 1);
        entry.mounts.set(mountKey, current);
        clock.ioUntilMs += needMs;
        const info = { path: record.path, fstype: record.fstype, fsname: record.fsname };
        this.sink.mountDelta(entry.identity, record.component !== undefined ? { ...info, component: record.component } : info, increment, record);
      }
    }
    this.maybeEnd(key, entry);
  }

  /**
   * An accepted claim stands only while no other uid is proven (by kernel evidence) to own the job;
   * once this uid is, the identity says so (the job may then take a slot of its own, see JobSlots).
   */
  private recheckOwner(entry: Entry): void {
    if (!entry.accepted || entry.identity.jobid === '') return;
    const owner = this.verifier.ownerOf(entry.identity.jobid);
    if (owner === undefined) return;
    if (owner === entry.identity.uid) {
      if (!entry.identity.jobVerified) entry.identity = { ...entry.identity, jobVerified: true };
      return;
    }
    entry.accepted = false;
    entry.refusal = 'job_mismatch';
  }

  /** Kernel evidence named a job's owner: other uids' accepted claims on it are revoked, now. */
  private ownerKnown(jobid: string, owner: number): void {
    for (const entry of this.entries.values()) if (entry.identity.jobid === jobid) this.recheckOwner(entry);
    this.sink.jobOwnerKnown?.(jobid, owner);
  }

  /** Holds a process frame of an unverifiable claim within its grace period (HeldSnapshot); false: refuse it. */
  private hold(key: string, entry: Entry, record: ProcessRecord, cred: Credentials, judged: boolean): boolean {
    if (entry.refusal !== 'unverified_job' || entry.identity.jobid === '') return false;
    const grace = this.limits.unverifiedGraceMs ?? 0;
    if (!entry.held) {
      // Held from the frame its claim was judged at, if nothing of the process was credited before
      // (a claim switched later starts from the snapshots as they are); a claim refused before stays refused.
      if (grace <= 0 || !judged || entry.lastProcess !== undefined) return false;
      entry.held = { sinceMs: this.now(), frames: 0, process: record, cred, mounts: new Map() };
      const by = `${entry.identity.jobid}/${entry.identity.uid}`;
      const keys = this.heldBy.get(by) ?? new Set<string>();
      keys.add(key);
      this.heldBy.set(by, keys);
    } else if (this.now() - entry.held.sinceMs > grace) {
      this.dropHeld(key, entry);
      return false;
    }
    entry.held.frames++;
    entry.held.process = record;
    entry.held.cred = cred;
    return true;
  }

  private holdMount(entry: Entry, record: MountRecord): boolean {
    const held = entry.held;
    if (!held || this.now() - held.sinceMs > (this.limits.unverifiedGraceMs ?? 0)) return false;
    if (!held.mounts.has(mountKeyOf(record))) {
      // Held mount frames count in the mount bounds like recorded ones.
      if (held.mounts.size >= MAX_MOUNTS_PER_PROCESS || this.mountRoom(entry) !== undefined) return false;
      this.chargeMounts(entry.identity.uid, 1);
    }
    held.frames++;
    held.mounts.set(mountKeyOf(record), record);
    return true;
  }

  /** Adds `n` (or takes -n) mount entries to a uid's and the total count. */
  private chargeMounts(uid: number, n: number): void {
    const mine = (this.mountsPerUid.get(uid) ?? 0) + n;
    if (mine > 0) this.mountsPerUid.set(uid, mine);
    else this.mountsPerUid.delete(uid);
    this.mountTotal += n;
  }

  /** Ends a hold: the frames held are refused and counted. */
  private dropHeld(key: string, entry: Entry): void {
    const held = entry.held;
    if (!held) return;
    entry.held = undefined;
    this.chargeMounts(entry.identity.uid, -held.mounts.size);
    const by = `${entry.identity.jobid}/${entry.identity.uid}`;
    const keys = this.heldBy.get(by);
    keys?.delete(key);
    if (keys?.size === 0) this.heldBy.delete(by);
    for (let i = 0; i < held.frames; i++) this.onReject('unverified_job', entry.identity.uid);
  }

  /** `uid`'s claim on `jobid` is now proven: the snapshots its processes held in their grace are credited. */
  private release(jobid: string, uid: number): void {
    const keys = this.heldBy.get(`${jobid}/${uid}`);
    if (!keys) return;
    this.heldBy.delete(`${jobid}/${uid}`);
    const grace = this.limits.unverifiedGraceMs ?? 0;
    for (const key of keys) {
      const entry = this.entries.get(key);
      const held = entry?.held;
      if (!entry || !held) continue;
      entry.held = undefined;
      this.chargeMounts(uid, -held.mounts.size);
      if (this.now() - held.sinceMs > grace) {
        for (let i = 0; i < held.frames; i++) this.onReject('unverified_job', uid);
        if (entry.ending) this.remove(key, entry);
        continue;
      }
      // Replayed as the process's first snapshot (nothing of it was credited), then its mounts.
      const lastSequence = entry.lastSequence;
      entry.accepted = true;
      entry.lastSequence = -1n;
      this.handleProcess(key, entry, held.process, held.cred, true);
      for (const mount of held.mounts.values()) if (this.entries.get(key) === entry) this.handleMount(key, entry, mount, uid);
      if (entry.lastSequence < lastSequence) entry.lastSequence = lastSequence;
    }
  }

  /** After the last snapshot of an exiting or exec'ing process, its entry goes (exec starts counting anew). */
  private maybeEnd(key: string, entry: Entry): void {
    if (entry.held) return; // kept until its grace ends or its claim is proven
    if (!entry.ending || entry.mountsPending > 0) return;
    this.remove(key, entry);
    if (entry.accepted) this.sink.processEnded?.(entry.identity);
  }

  /**
   * Forgets processes not heard from for `idleMs` (killed without a final frame). Keep this well above
   * the profiler's flush interval: a forgotten process that speaks again starts from a baseline (see
   * the top of this file), so its counts do not jump; its I/O while forgotten is not counted.
   */
  expire(idleMs: number): number {
    // Holds past their grace: the frames held are refused (and a process that has ended goes).
    const grace = this.limits.unverifiedGraceMs ?? 0;
    for (const keys of [...this.heldBy.values()])
      for (const key of [...keys]) {
        const entry = this.entries.get(key);
        if (!entry?.held || this.now() - entry.held.sinceMs <= grace) continue;
        this.dropHeld(key, entry);
        if (entry.ending && entry.mountsPending === 0) this.remove(key, entry);
      }
    const cutoff = this.now() - idleMs;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.lastSeenMs < cutoff) {
        this.remove(key, entry);
        removed++;
      }
    }
    // Keep the verifier's job owners and the pid clocks bounded: only jobs and pids still known.
    this.verifier.retainOnly(this.liveJobIds());
    const pids = new Set([...this.entries.values()].map((e) => e.identity.pid));
    for (const pid of this.pidClocks.keys()) if (!pids.has(pid)) this.pidClocks.delete(pid);
    return removed;
  }

  /** Job ids of the processes currently known (for bounding the verifier's memory). */
  liveJobIds(): Set<string> {
    return new Set([...this.entries.values()].map((e) => e.identity.jobid));
  }
}
