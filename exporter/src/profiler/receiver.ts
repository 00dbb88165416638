// The profiler socket end to end: the native SOCK_SEQPACKET server → decoder → process table → sink.
// Everything a sender can get wrong is counted by reason and dropped; nothing it sends can throw
// past this class. Shared by the exporter's `profiler` collector and `jobio run`.
import { WIRE_MAX_FRAME } from '../parsers/profiler-wire.js';
import { decodeFrame, DECODE_REJECT_REASONS, type RejectReason as DecodeRejectReason } from '../parsers/profiler-record.js';
import { JobVerifier } from './job-verifier.js';
import { loadSeqpacketAddon, type SeqpacketEvent, type SeqpacketServer, type SeqpacketServerStats } from './native.js';
import { ProcessTable, TABLE_REJECT_REASONS, type AggregatorSink, type TableRejectReason } from './process-table.js';

/**
 * Why a message was not counted:
 * - decoder reasons (short, bad_magic, bad_version, bad_kind, bad_length, bad_string);
 * - `oversized`: larger than JOBIO_WIRE_MAX_FRAME;
 * - `job_mismatch`: the claimed job id is contradicted by the process's environment or cgroup;
 * - `unverified_job`: the claim could not be checked (the process was gone) and the same uid has no
 *   verified claim on that job;
 * - `no_process`: a mount frame without its process frame; `stale`: an old or repeated sequence;
 * - `overloaded`: the receiver's queue to JavaScript was full.
 */
export type RejectReason = DecodeRejectReason | TableRejectReason | 'oversized' | 'overloaded';
export const REJECT_REASONS: readonly RejectReason[] = [...DECODE_REJECT_REASONS, 'oversized', ...TABLE_REJECT_REASONS, 'overloaded'];

export interface ReceiverOptions {
  readonly socketPath: string;
  /** Socket file permissions (default 0o666: every user's job may connect). */
  readonly mode?: number;
  readonly procfs: string;
  readonly sink: AggregatorSink;
  /**
   * Check claimed job ids against /proc (default true). `jobio run` turns it off: its private socket
   * only reaches the user's own processes (see JobVerifierOptions.trustClaims).
   */
  readonly verifyJobs?: boolean;
  /** Open connections of one uid beyond this are closed at once and counted (default 256). */
  readonly maxConnectionsPerUser?: number;
}

/**
 * Why a connection was closed as soon as it was accepted:
 * - `per_user_limit`: its uid already had maxConnectionsPerUser connections open;
 * - `max_connections`: the receiver already held its 4096 connections (or the peer's credentials were unreadable).
 */
export type RefuseReason = 'per_user_limit' | 'max_connections';

export class ProfilerReceiver {
  private readonly server: SeqpacketServer;
  private readonly table: ProcessTable;
  private readonly rejected = new Map<RejectReason, number>(REJECT_REASONS.map((r) => [r, 0]));
  private closed = false;
  private lastStats: SeqpacketServerStats | undefined;

  /** Binds the socket; throws the addon's error (with `code`, e.g. ENOENT) when it cannot. */
  constructor(options: ReceiverOptions) {
    const addon = loadSeqpacketAddon();
    this.table = new ProcessTable(new JobVerifier(options.procfs, { trustClaims: options.verifyJobs === false }), options.sink, (reason) => this.reject(reason));
    this.server = new addon.SeqpacketServer(
      options.socketPath,
      { maxFrame: WIRE_MAX_FRAME, mode: options.mode ?? 0o666, procfs: options.procfs, maxConnectionsPerUser: options.maxConnectionsPerUser ?? 256 },
      (event) => this.onEvent(event),
    );
  }

  private reject(reason: RejectReason): void {
    this.rejected.set(reason, (this.rejected.get(reason) ?? 0) + 1);
  }

  private onEvent(event: SeqpacketEvent): void {
    if (this.closed) return;
    if (event.type === 'close') return;
    if (event.type === 'oversized' || !event.data) return this.reject('oversized');
    const result = decodeFrame(event.data);
    if (!result.ok) return this.reject(result.reason);
    this.table.handle(result.record, event);
  }

  /** Rejected messages by reason since start (every reason present, zero or not). */
  rejectedCounts(): ReadonlyMap<RejectReason, number> {
    const counts = new Map(this.rejected);
    if (!this.closed) this.lastStats = this.server.stats();
    counts.set('overloaded', this.lastStats?.queueDropped ?? 0);
    return counts;
  }

  /** Connections refused by reason since start (every reason present). */
  refusedConnections(): ReadonlyMap<RefuseReason, number> {
    const s = this.stats();
    return new Map<RefuseReason, number>([
      ['per_user_limit', s.refusedPerUser],
      ['max_connections', s.refused],
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
