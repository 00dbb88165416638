// Programs that ran without the profiler, learnt from the processes that ran with it: a profiled
// process names the program it is about to exec (EXEC frame) and the children it starts with vfork or
// posix_spawn (pid and program); an exec'd image or a child that never says hello (static, setuid, a
// cleared environment, excluded) ran unprofiled. `jobio run` asks at the end (`unprofiled()`); the
// exporter asks at each scrape for what has waited longer than a grace period (`settle()`), so every
// such program is counted once, in the job of the process that started it. Bounded: at most
// `maxPending` programs wait at a time, a quarter of them per uid when the owner's uid is known
// (further ones are dropped and counted), and pids' start times are kept only as long as a pending
// program could need them.
import { FLAG_EXEC } from '../parsers/profiler-wire.js';
import type { ProcessRecord } from '../parsers/profiler-record.js';

interface Pending<T> {
  readonly pid: number;
  readonly name: string;
  readonly owner: T;
  readonly sinceMs: number;
  /** an exec: the exec'ing image (process key, start, sequence of its EXEC frame) */
  readonly exec?: { readonly key: string; readonly startNs: bigint; readonly sequence: bigint };
}

export const DEFAULT_MAX_PENDING = 4096;

export class UnprofiledTracker<T> {
  /** pending programs, by the pid their image or child would say hello from */
  private readonly pending = new Map<number, Pending<T>[]>();
  private pendingCount = 0;
  private readonly pendingPerUid = new Map<number, number>();
  /** per pid: the latest process start that said hello, and when (receiver time) */
  private readonly starts = new Map<number, { startNs: bigint; atMs: number }>();
  /** per process key: its last frame's sequence (an exec that failed is followed by more frames) */
  private readonly sequences = new Map<string, { sequence: bigint; atMs: number }>();
  /** per process key: spawned children already taken from its ring */
  private readonly spawnedSeen = new Map<string, number>();
  /** programs dropped because maxPending were waiting */
  dropped = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxPending = DEFAULT_MAX_PENDING,
    /** the uid an owner belongs to, for the per-uid share (none: one user, as in `jobio run`) */
    private readonly uidOf?: (owner: T) => number,
  ) {}

  /** Every accepted process frame, with the identity the program would be counted under. */
  frame(key: string, pid: number, record: ProcessRecord, owner: T): void {
    const at = this.now();
    const start = this.starts.get(pid);
    if (!start || start.startNs < record.header.startNs) this.starts.set(pid, { startNs: record.header.startNs, atMs: at });
    else start.atMs = at;
    this.sequences.set(key, { sequence: record.header.sequence, atMs: at });
    if (record.header.flags & FLAG_EXEC)
      this.add({ pid, name: record.execTarget || '(unknown program)', owner, sinceMs: at, exec: { key, startNs: record.header.startNs, sequence: record.header.sequence } });
    const total = record.spawnedTotal ?? 0;
    const seen = this.spawnedSeen.get(key) ?? 0;
    if (total > seen && record.spawned) {
      // the ring's newest entry is (total - 1) % ring; take the ones after `seen`
      const ring = record.spawned.length;
      for (let i = Math.max(seen, total - ring); i < total; i++) {
        const s = record.spawned[i % ring];
        if (s) this.add({ pid: s.pid, name: s.name || '(unknown program)', owner, sinceMs: at });
      }
      this.spawnedSeen.set(key, total);
    }
  }

  /** A process ended (its last frame arrived): its spawned-ring position is no longer needed. */
  ended(key: string): void {
    this.spawnedSeen.delete(key);
  }

  private add(p: Pending<T>): void {
    const uid = this.uidOf?.(p.owner);
    const mine = uid === undefined ? 0 : (this.pendingPerUid.get(uid) ?? 0);
    if (this.pendingCount >= this.maxPending || (uid !== undefined && mine >= this.maxPending / 4)) {
      this.dropped++;
      return;
    }
    const list = this.pending.get(p.pid) ?? [];
    list.push(p);
    this.pending.set(p.pid, list);
    this.pendingCount++;
    if (uid !== undefined) this.pendingPerUid.set(uid, mine + 1);
  }

  private release(p: Pending<T>): void {
    this.pendingCount--;
    const uid = this.uidOf?.(p.owner);
    if (uid === undefined) return;
    const n = (this.pendingPerUid.get(uid) ?? 1) - 1;
    if (n > 0) this.pendingPerUid.set(uid, n);
    else this.pendingPerUid.delete(uid);
  }

  /** Has the program said hello (or did the exec fail: the exec'ing image went on)? */
  private resolved(p: Pending<T>): boolean {
    const start = this.starts.get(p.pid);
    if (!p.exec) return start !== undefined;
    if (start && start.startNs > p.exec.startNs) return true;
    return (this.sequences.get(p.exec.key)?.sequence ?? p.exec.sequence) > p.exec.sequence;
  }

  /** `jobio run`, at the end: every program still not heard from (pid: the one it would have said hello from). */
  unprofiled(): { name: string; owner: T; pid: number }[] {
    const out: { name: string; owner: T; pid: number }[] = [];
    for (const list of this.pending.values()) for (const p of list) if (!this.resolved(p)) out.push({ name: p.name, owner: p.owner, pid: p.pid });
    return out;
  }

  /** Did any process with this pid say hello? */
  sawPid(pid: number): boolean {
    return this.starts.has(pid);
  }

  /**
   * The exporter, at each scrape: programs pending for at least graceMs that never said hello (each
   * returned once), and forgets what no pending program needs any more.
   */
  settle(graceMs: number): { name: string; owner: T }[] {
    const now = this.now();
    const out: { name: string; owner: T }[] = [];
    for (const [pid, list] of this.pending) {
      const keep = list.filter((p) => {
        if (!this.resolved(p)) {
          if (now - p.sinceMs < graceMs) return true;
          out.push({ name: p.name, owner: p.owner });
        }
        this.release(p);
        return false;
      });
      if (keep.length > 0) this.pending.set(pid, keep);
      else this.pending.delete(pid);
    }
    // A hello can come before the frame that names its program (a child's start-up frame before the
    // parent's next snapshot): starts and sequences are kept for two grace periods.
    const horizon = now - 2 * graceMs;
    for (const [pid, s] of this.starts) if (s.atMs < horizon && !this.pending.has(pid)) this.starts.delete(pid);
    for (const [key, s] of this.sequences) if (s.atMs < horizon) this.sequences.delete(key);
    // processes silent that long (killed without a last frame) no longer need their ring position
    for (const key of this.spawnedSeen.keys()) if (!this.sequences.has(key)) this.spawnedSeen.delete(key);
    return out;
  }

  get waiting(): number {
    return this.pendingCount;
  }
}
