// The exporter-side counters of the profiler collector. Increments from the process table are routed
// through the job slots (own series or `_other`) at arrival and summed into label-keyed maps, which the
// collector's families (collectors/profiler_metrics.ts) hand out as they are when a scrape renders them.
// The user element of a key is the uid (decimal) or `_other`: names are resolved at scrape time by the
// same resolver as every other collector's (labels/users.ts), so an LDAP user is the same `user` here
// as in the jobstats series.
import { CALL_TYPES, CLASSES, DIRECTIONS, SIZE_BINS } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';
import { JobSlots } from './job-slots.js';
import { withoutControlChars } from '../labels/control-chars.js';
import { NONE, OTHER } from '../labels/reserved.js';
import type { AggregatorSink, MountInfo, ProcessIdentity, ProcessIncrement } from './process-table.js';
import { reasonsOf } from './reasons.js';
import { programOf, type Program } from './programs.js';
import { UnprofiledTracker } from './unprofiled.js';
import type { ProcessRecord } from '../parsers/profiler-record.js';

/** The fstype of the library's `[network]` pseudo mounts (small transfers there are green). */
const NETWORK_FSTYPE = 'socket';
/**
 * The mount label of all socket I/O. The library counts it per peer address ("[network] 10.1.2.3",
 * for the per-address records of `jobio run --output`); here every address goes to the one label, so
 * the series stay as many as without addresses.
 */
export const NETWORK_MOUNT = '[network]';

/** A sum per label tuple; the job label is always the first element. */
export class LabelledSums {
  readonly values = new Map<string, { labels: string[]; value: number }>();

  add(labels: string[], value: number): void {
    if (value === 0) return;
    const key = labels.join('\0');
    const entry = this.values.get(key);
    if (entry) entry.value += value;
    else this.values.set(key, { labels, value });
  }

  dropJob(jobid: string): void {
    for (const [key, entry] of this.values) if (entry.labels[0] === jobid) this.values.delete(key);
  }

  /** Drops the series of a job of every user but one (the user label is always the second element). */
  dropJobExceptUser(jobid: string, user: string): void {
    for (const [key, entry] of this.values) if (entry.labels[0] === jobid && entry.labels[1] !== user) this.values.delete(key);
  }
}

export const NO_JOB = NONE;
/** Distinct mount labels per job by default (the profiler itself tracks at most 64 per process). */
export const DEFAULT_MAX_MOUNTS = 16;
/** Distinct program labels per job by default. */
export const DEFAULT_MAX_PROGRAMS = 8;
/** The mount (program) label of load on mounts (programs) beyond a job's allowance (see CappedLabels). */
export const OTHER_MOUNT = OTHER;

/**
 * Waiting this long after a profiled process named a program it exec'd or spawned, a program that
 * never said hello ran without the profiler (its start-up frame comes within milliseconds).
 */
export const NOT_PROFILED_GRACE_MS = 10_000;

/** Why a value went to "_other": its job's allowance, its sender uid's, or the node's was used up. */
export type FoldReason = 'job_limit' | 'user_limit' | 'node_limit';

export interface LabelBudget {
  /** Distinct (job, value) pairs one sender uid may hold over all jobs. */
  readonly maxPerUser: number;
  /** Distinct (job, value) pairs on the node. */
  readonly maxTotal: number;
}

/**
 * Bounded cardinality for a label whose values come from the process's own frames, the mount and the
 * program (docs/architecture.md "Bounded cardinality"): a process could name any number of made-up
 * mounts or programs, so each job (and `_other`) keeps at most `max` distinct values, first come; a
 * sender uid at most `maxPerUser` (job, value) pairs over all its jobs, and the node `maxTotal`, so
 * one user's 25 jobs cannot each fill their allowance. The load on further values goes to "_other"
 * (totals stay true) and is counted, per sender uid and reason. Control characters in a value are
 * replaced (they would reach the exposition and terminals). A job's values and the budget they used
 * go with its series when it expires.
 */
export class CappedLabels {
  /** job → value → the uid whose frame first named it (charged for it). */
  private readonly perJob = new Map<string, Map<string, number>>();
  private readonly perUser = new Map<number, number>();
  private total = 0;
  private readonly budget: LabelBudget;
  /** Frames whose value was folded into "_other". */
  folded = 0;
  /** The same, per sender uid and reason (bounded by the uids on the host). */
  readonly foldedByUser = new Map<number, Map<FoldReason, number>>();

  constructor(
    private readonly max: number,
    budget: Partial<LabelBudget> = {},
  ) {
    this.budget = { maxPerUser: Infinity, maxTotal: Infinity, ...budget };
  }

  label(job: string, raw: string, uid = -1): string {
    const value = withoutControlChars(raw);
    let values = this.perJob.get(job);
    if (values?.has(value)) return value;
    const reason: FoldReason | undefined =
      value === OTHER || (values?.size ?? 0) >= this.max
        ? 'job_limit'
        : (this.perUser.get(uid) ?? 0) >= this.budget.maxPerUser
          ? 'user_limit'
          : this.total >= this.budget.maxTotal
            ? 'node_limit'
            : undefined;
    if (reason === undefined) {
      if (!values) {
        values = new Map();
        this.perJob.set(job, values);
      }
      values.set(value, uid);
      this.perUser.set(uid, (this.perUser.get(uid) ?? 0) + 1);
      this.total++;
      return value;
    }
    this.folded++;
    const byReason = this.foldedByUser.get(uid) ?? new Map<FoldReason, number>();
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    this.foldedByUser.set(uid, byReason);
    return OTHER_MOUNT;
  }

  dropJob(job: string): void {
    for (const uid of this.perJob.get(job)?.values() ?? []) {
      const left = (this.perUser.get(uid) ?? 1) - 1;
      if (left > 0) this.perUser.set(uid, left);
      else this.perUser.delete(uid);
      this.total--;
    }
    this.perJob.delete(job);
  }
}

export class ProfilerMetricStore implements AggregatorSink {
  readonly calls = new LabelledSums(); // jobid, user, mount, call, class
  /** Calls as they were made, per call type (an open's class is counted in `calls` at its close): the job's call rate. */
  readonly callsMade = new LabelledSums(); // jobid, user, mount, call
  /** Their estimated seconds, likewise as they were made (an open's are in `ioSeconds` at its close): the job's I/O time in time. */
  readonly ioMadeSeconds = new LabelledSums(); // jobid, user, mount, call
  readonly ioSeconds = new LabelledSums(); // jobid, user, mount, call, class
  /** Calls whose duration was measured, per call type only: 13 series per job and user (a thread samples at one rate on every mount). */
  readonly timedCalls = new LabelledSums(); // jobid, user, call
  readonly readBytes = new LabelledSums(); // jobid, user, mount, size
  readonly writeBytes = new LabelledSums(); // jobid, user, mount, size
  readonly runtimeSeconds = new LabelledSums(); // jobid, user
  readonly reasonCalls = new LabelledSums(); // jobid, user, mount, class, reason, program, role
  readonly reasonBytes = new LabelledSums(); // jobid, user, mount, class, reason, program, role
  readonly reasonSeconds = new LabelledSums(); // jobid, user, mount, class, reason, program, role
  readonly unseenProcesses = new LabelledSums(); // jobid, user, kind
  readonly unseenBytes = new LabelledSums(); // jobid, user, kind

  /** Every sum keyed by (job, user, …): what expiry, ownership and name resolution go over. */
  private get allSums(): LabelledSums[] {
    return [
      this.calls,
      this.callsMade,
      this.ioMadeSeconds,
      this.ioSeconds,
      this.timedCalls,
      this.readBytes,
      this.writeBytes,
      this.runtimeSeconds,
      this.reasonCalls,
      this.reasonBytes,
      this.reasonSeconds,
      this.unseenProcesses,
      this.unseenBytes,
    ];
  }
  /** programs exec'd or spawned by profiled processes that may never say hello (not_profiled) */
  private readonly unprofiled: UnprofiledTracker<ProcessIdentity>;
  droppedFrames = 0;
  /** Socket calls the libraries counted on `[network]` only, for lack of a slot for their peer address. */
  networkFolded = 0;

  constructor(
    private readonly slots: JobSlots,
    private readonly now: () => number = Date.now,
    private readonly mounts: CappedLabels = new CappedLabels(DEFAULT_MAX_MOUNTS),
    private readonly programs: CappedLabels = new CappedLabels(DEFAULT_MAX_PROGRAMS),
  ) {
    this.unprofiled = new UnprofiledTracker(now, undefined, (owner) => owner.uid);
  }

  private labels(id: ProcessIdentity, weight: number): [string, string] {
    const claim = id.jobid === '' ? undefined : { uid: id.uid, verified: id.jobVerified === true };
    const job = this.slots.route(id.jobid === '' ? NO_JOB : id.jobid, weight, this.now(), claim);
    return job === OTHER ? [OTHER, OTHER] : [job, String(id.uid)];
  }

  /** The uids in the user element of every key (for the resolver, before a scrape labels them). */
  uids(): Set<number> {
    const uids = new Set<number>();
    for (const sums of this.allSums) {
      for (const { labels } of sums.values.values()) if (labels[1] !== undefined && labels[1] !== OTHER) uids.add(Number(labels[1]));
    }
    return uids;
  }

  mountDelta(id: ProcessIdentity, mount: MountInfo, inc: Counters): void {
    let weight = 0;
    for (let c = 0; c < CALL_TYPES.length; c++) for (let k = 0; k < CLASSES.length; k++) weight += inc[slot.calls(c, k)] ?? 0;
    const [job, user] = this.labels(id, weight);
    const network = mount.fstype === NETWORK_FSTYPE;
    const path = this.mounts.label(job, network ? NETWORK_MOUNT : mount.path, id.uid);
    CALL_TYPES.forEach((call, c) => {
      CLASSES.forEach((cls, k) => {
        this.calls.add([job, user, path, call, cls], inc[slot.calls(c, k)] ?? 0);
        this.ioSeconds.add([job, user, path, call, cls], (inc[slot.timeNs(c, k)] ?? 0) / 1e9);
      });
      this.timedCalls.add([job, user, call], inc[slot.sampled(c)] ?? 0);
      this.callsMade.add([job, user, path, call], inc[slot.made(c)] ?? 0);
      this.ioMadeSeconds.add([job, user, path, call], (inc[slot.madeTimeNs(c)] ?? 0) / 1e9);
    });
    DIRECTIONS.forEach((dir, d) => {
      const sums = dir === 'read' ? this.readBytes : this.writeBytes;
      SIZE_BINS.forEach((size, b) => sums.add([job, user, path, size], inc[slot.sizedBytes(d, b)] ?? 0));
    });
    const reasons = reasonsOf(inc, network);
    const program = reasons.length > 0 ? this.programLabels(job, programOf(id.exe, id.exePath, mount.component), id.uid) : undefined;
    for (const f of reasons) {
      const labels = [job, user, path, f.cls, f.reason, ...(program ?? [])];
      this.reasonCalls.add(labels, f.calls);
      this.reasonBytes.add(labels, f.bytes);
      this.reasonSeconds.add(labels, f.timeNs / 1e9);
    }
  }

  /** The `program` and `role` labels: the program's name (with its component), capped per job. */
  private programLabels(job: string, p: Program, uid: number): [string, string] {
    const name = p.component !== undefined ? `${p.name} [${p.component}]` : p.name;
    const label = this.programs.label(job, name, uid);
    return label === OTHER ? [OTHER, OTHER] : [label, p.role];
  }

  processDelta(id: ProcessIdentity, inc: ProcessIncrement, record?: ProcessRecord): void {
    this.droppedFrames += inc.droppedFrames;
    this.networkFolded += inc.networkFolded;
    const [job, user] = this.labels(id, 0);
    this.runtimeSeconds.add([job, user], inc.runtimeNs / 1e9);
    for (const kind of inc.unseenKinds ?? []) this.unseenProcesses.add([job, user, kind], 1);
    this.unseenBytes.add([job, user, 'mmap_io'], inc.unseenMmapBytes ?? 0);
    if (record) this.unprofiled.frame(id.key, id.pid, record, id);
  }

  processEnded(id: ProcessIdentity): void {
    this.unprofiled.ended(id.key);
  }

  /** Programs that never said hello within the grace period: counted in their starter's job. */
  private settleUnprofiled(): void {
    for (const { owner } of this.unprofiled.settle(NOT_PROFILED_GRACE_MS)) {
      const [job, user] = this.labels(owner, 0);
      this.unseenProcesses.add([job, user, 'not_profiled'], 1);
    }
  }

  /** Programs that could not wait for their hello (more than the tracker holds): not counted. */
  get unprofiledDropped(): number {
    return this.unprofiled.dropped;
  }

  /**
   * Kernel evidence names the job's owner: what other users credited to it on their environment alone
   * (squatters who claimed it first) was invented, so their series of that job go, even those of
   * processes long gone (their later frames are refused).
   */
  jobOwnerKnown(jobid: string, uid: number): void {
    const user = String(uid); // the user element of a key is the uid
    for (const sums of this.allSums) sums.dropJobExceptUser(jobid, user);
  }

  get foldedJobs(): number {
    return this.slots.waitingCount;
  }

  /** Mount frames whose made-up or surplus mount went to mount="_other". */
  get foldedMounts(): number {
    return this.mounts.folded;
  }

  /** Mount frames whose mount went to mount="_other", per sender uid and reason. */
  get foldedMountsByUser(): ReadonlyMap<number, ReadonlyMap<FoldReason, number>> {
    return this.mounts.foldedByUser;
  }

  /** Mount frames whose program went to program="_other", per sender uid and reason. */
  get foldedProgramsByUser(): ReadonlyMap<number, ReadonlyMap<FoldReason, number>> {
    return this.programs.foldedByUser;
  }

  /** Mount frames whose program was beyond its job's allowance and went to program="_other". */
  get foldedPrograms(): number {
    return this.programs.folded;
  }

  /** Scrape-time housekeeping: series of jobs idle past the expiry go, free slots are handed out. */
  maintain(expiryMs: number): void {
    this.settleUnprofiled();
    for (const job of this.slots.maintain(this.now(), expiryMs)) {
      for (const sums of this.allSums) sums.dropJob(job);
      this.mounts.dropJob(job);
      this.programs.dropJob(job);
    }
  }
}
