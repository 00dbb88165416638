// The profiler socket end to end: the native SOCK_SEQPACKET server → decoder → process table → sink.
// Everything a sender can get wrong is counted by reason and dropped; nothing it sends can throw
// past this class. Shared by the exporter's `profiler` collector and `jobio run`.
import { WIRE_MAX_FRAME } from '../parsers/profiler-wire.js';
import { decodeFrame, DECODE_REJECT_REASONS, type RejectReason as DecodeRejectReason } from '../parsers/profiler-record.js';
import { connectionBudget, ownOpenFilesLimit } from './connection-budget.js';
import { JOB_CGROUP_PATH_PATTERNS } from '../labels/job-cgroup-layouts.js';
import { JobVerifier } from './job-verifier.js';
import { loadSeqpacketAddon, type SeqpacketEvent, type SeqpacketServer, type SeqpacketServerStats } from './native.js';
import type { Ceilings } from './plausibility.js';
import { ProcessTable, TABLE_REJECT_REASONS, type AggregatorSink, type TableRejectReason } from './process-table.js';

/**
 * Why a message was not counted:
 * - decoder reasons (short, bad_magic, bad_version, bad_kind, bad_length, bad_string);
 * - `oversized`: larger than JOBIO_WIRE_MAX_FRAME;
 * - `job_mismatch`: the claimed job id is contradicted by the process's environment or cgroup;
 * - `unverified_job`: the claim could not be checked (the process was gone) and the same uid had no
 *   verified claim on that job by the end of the grace period (counted then);
 * - `no_process`: a mount frame without its process frame; `stale`: an old or repeated sequence;
 * - `too_many_processes`, `too_many_mounts`, `process_limit`, `mount_limit`, `user_mount_limit`: over
 *   a bound of the process table (per uid, per process, or over all uids; see TableLimits);
 * - `implausible`: figures beyond what a process can do in the time elapsed (plausibility.ts);
 *   `counter_decrease`: a figure lower than the process's last one (no reset without a new process);
 * - `evicted`: not a message: a process entry without kernel proof of its job, forgotten to make room
 *   for a kernel-proven job's process (charged to the evicted process's uid);
 * - `overloaded`: the receiver's queue to JavaScript was full, or the sender uid's share of it, or its
 *   last quarter (kept for uids holding under a sixteenth of it).
 */
export type RejectReason = DecodeRejectReason | TableRejectReason | 'oversized' | 'overloaded';
export const REJECT_REASONS: readonly RejectReason[] = [...DECODE_REJECT_REASONS, 'oversized', ...TABLE_REJECT_REASONS, 'overloaded'];

/** The socket file's permissions unless told otherwise: every user's job on the host may connect. */
export const DEFAULT_SOCKET_MODE = 0o666;

export interface ReceiverOptions {
  readonly socketPath: string;
  /** A socket already listening on socketPath, inherited (`jobio run --attach`): adopted instead of bound. */
  readonly listenFd?: number;
  /** Socket file permissions (default DEFAULT_SOCKET_MODE). */
  readonly mode?: number;
  readonly procfs: string;
  /** The cgroup mount (<sysfs>/fs/cgroup): job owners are kept while their job's cgroup exists (JobVerifierOptions). */
  readonly cgroupfs?: string;
  readonly sink: AggregatorSink;
  /**
   * Check claimed job ids against /proc (default true). `jobio run` turns it off: its private socket
   * only reaches the user's own processes (see JobVerifierOptions.trustClaims).
   */
  readonly verifyJobs?: boolean;
  /** Open connections beyond this are closed at once and counted (default or 0: connection-budget.ts, sized by the node). */
  readonly maxConnections?: number;
  /** Open connections of one uid beyond this are closed at once and counted (default or 0: a quarter of maxConnections). */
  readonly maxConnectionsPerUser?: number;
  /** Per-process ceilings of plausibility.ts beyond the defaults (bytes per second: a flag). */
  readonly ceilings?: Partial<Ceilings>;
  /** How long frames of an unverifiable claim are held for a proof of the same uid's claim (default 10 s, 0: refused at once). */
  readonly unverifiedGraceMs?: number;
  /** Called after each event from the socket is handled: `jobio run` waits on it for drained(). */
  readonly onHandled?: () => void;
}

/**
 * Why a connection was closed as soon as it was accepted:
 * - `per_user_limit`: its uid already had maxConnectionsPerUser connections open;
 * - `max_connections`: the receiver already held maxConnections connections (or the peer's credentials were unreadable);
 * - `unverified_limit`: the peer was in no job cgroup and only the connections kept for job processes
 *   were left (a quarter of maxConnections, when claims are verified).
 */
export type RefuseReason = 'per_user_limit' | 'max_connections' | 'unverified_limit';

/** What rejectedByUser() counts besides messages: connections of the uid refused at accept, whatever the reason. */
export type UserRejectReason = RejectReason | 'connection_refused';

export class ProfilerReceiver {
  private readonly server: SeqpacketServer;
  private readonly table: ProcessTable;
  private readonly rejected = new Map<RejectReason, number>(REJECT_REASONS.map((r) => [r, 0]));
  /** Rejections by sender uid and reason (bounded by the accounts on the host times the reasons). */
  private readonly rejectedByUid = new Map<number, Map<RejectReason, number>>();
  private closed = false;
  private lastStats: SeqpacketServerStats | undefined;

  /** Binds the socket; throws the addon's error (with `code`, e.g. ENOENT) when it cannot. */
  constructor(options: ReceiverOptions) {
    const addon = loadSeqpacketAddon();
    this.table = new ProcessTable(
      new JobVerifier(options.procfs, { trustClaims: options.verifyJobs === false, cgroupfs: options.cgroupfs }),
      options.sink,
      (reason, uid) => this.reject(reason, uid),
      Date.now,
      undefined,
      {
        procfs: options.procfs,
        ...options.ceilings,
        ...(options.unverifiedGraceMs !== undefined ? { unverifiedGraceMs: options.unverifiedGraceMs } : {}),
      },
    );
    const connections = connectionBudget(ownOpenFilesLimit(), { total: options.maxConnections, perUser: options.maxConnectionsPerUser });
    this.server = new addon.SeqpacketServer(
      options.socketPath,
      {
        maxFrame: WIRE_MAX_FRAME,
        mode: options.mode ?? DEFAULT_SOCKET_MODE,
        procfs: options.procfs,
        maxConnections: connections.total,
        maxConnectionsPerUser: connections.perUser,
        ...(options.listenFd !== undefined ? { listenFd: options.listenFd } : {}),
        // A quarter of the connections kept for processes the kernel placed in a job (the addon's
        // default with patterns): colluding uids outside any job cannot shut a job's processes out.
        // Not for `jobio run`, whose private socket only the user's own processes reach.
        ...(options.verifyJobs === false ? {} : { jobCgroupPatterns: JOB_CGROUP_PATH_PATTERNS }),
      },
      options.onHandled === undefined
        ? (event) => this.onEvent(event)
        : (event) => {
            this.onEvent(event);
            options.onHandled?.();
          },
    );
  }

  private reject(reason: RejectReason, uid: number): void {
    this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
    let mine = this.rejectedByUid.get(uid);
    if (!mine) this.rejectedByUid.set(uid, (mine = new Map<RejectReason, number>()));
    mine.set(reason, (mine.get(reason) ?? 0) + 1);
  }

  private onEvent(event: SeqpacketEvent): void {
    if (this.closed) return;
    if (event.type === 'close') return;
    if (event.type === 'oversized' || !event.data) return this.reject('oversized', event.uid);
    const result = decodeFrame(event.data);
    if (!result.ok) return this.reject(result.reason, event.uid);
    this.table.handle(result.record, event);
  }

  /** Rejected messages by reason since start (every reason present, zero or not). */
  rejectedCounts(): ReadonlyMap<RejectReason, number> {
    const counts = new Map(this.rejected);
    if (!this.closed) this.lastStats = this.server.stats();
    counts.set('overloaded', this.lastStats?.queueDropped ?? 0);
    return counts;
  }

  /**
   * Rejected and dropped messages by sender uid and reason since start (only what happened): so one
   * user's losses, and what one user's flood or forgeries cost, can be told apart from the others'.
   * `overloaded` comes from the addon's per-uid queue accounting, `connection_refused` (connections
   * refused at accept, for any reason of refusedConnections) from its per-uid connection accounting.
   */
  rejectedByUser(): ReadonlyMap<number, ReadonlyMap<UserRejectReason, number>> {
    const out = new Map<number, Map<UserRejectReason, number>>();
    for (const [uid, counts] of this.rejectedByUid) out.set(uid, new Map(counts));
    if (!this.closed) this.lastStats = this.server.stats();
    for (const [uid, dropped] of Object.entries(this.lastStats?.queueDroppedByUid ?? {})) {
      const counts = out.get(Number(uid)) ?? new Map<UserRejectReason, number>();
      counts.set('overloaded', dropped);
      out.set(Number(uid), counts);
    }
    for (const [uid, refused] of Object.entries(this.lastStats?.refusedByUid ?? {})) {
      const counts = out.get(Number(uid)) ?? new Map<UserRejectReason, number>();
      counts.set('connection_refused', refused);
      out.set(Number(uid), counts);
    }
    return out;
  }

  /** Connections refused by reason since start (every reason present). */
  refusedConnections(): ReadonlyMap<RefuseReason, number> {
    const s = this.stats();
    return new Map<RefuseReason, number>([
      ['per_user_limit', s.refusedPerUser],
      ['max_connections', s.refused],
      ['unverified_limit', s.refusedUnverified],
    ]);
  }

  stats(): SeqpacketServerStats {
    if (!this.closed) this.lastStats = this.server.stats();
    if (!this.lastStats) throw new Error('receiver closed before any stats were read');
    return this.lastStats;
  }

  /**
   * True once every connection made so far has been accepted, read to its end and delivered here:
   * `jobio run` waits for this after the command exits so the final frames are not lost.
   */
  drained(): boolean {
    const s = this.stats();
    return !s.pendingConnections && s.accepted === s.closed && s.enqueued === s.delivered;
  }

  /** Forget processes silent for idleMs; returns how many went. */
  expire(idleMs: number): number {
    return this.table.expire(idleMs);
  }

  get processes(): number {
    return this.table.size;
  }

  close(): void {
    if (this.closed) return;
    this.lastStats = this.server.stats();
    this.closed = true;
    this.server.close();
  }
}
