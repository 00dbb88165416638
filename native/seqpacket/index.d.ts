// Typed surface of the jobio receiver addon (native/seqpacket).

/** What the epoll thread hands to JavaScript. Credentials come from the kernel, never from the payload. */
export interface SeqpacketEvent {
  /** `frame`: one message of at most maxFrame bytes; `oversized`: a larger message, discarded; `close`: the peer hung up. */
  readonly type: 'frame' | 'oversized' | 'close';
  /** Receiver-assigned id of the connection (unique for the server's life). */
  readonly connection: number;
  /** Sender's pid/uid/gid (SCM_CREDENTIALS of the message; SO_PEERCRED of the connection for `close`). */
  readonly pid: number;
  readonly uid: number;
  readonly gid: number;
  /** Message length in bytes (the real length for `oversized`; 0 for `close`). */
  readonly size: number;
  /** The message bytes, for `frame` only. */
  readonly data?: Buffer;
  /**
   * With the first frame of each sender on a connection, when `procfs` is set: what <procfs>/<pid>
   * said as the frame was read (a short-lived process may be gone by the time JavaScript looks).
   * `cgroup`: the cgroup file, absent if unreadable; `environ`: only the scheduler job id variables
   * (NUL-separated; a single NUL when the environment has none of them), absent if unreadable or empty;
   * `exe`: the target of the `exe` link (the program's absolute path), absent if unreadable.
   */
  readonly evidence?: { readonly cgroup?: string; readonly environ?: Buffer; readonly exe?: string };
}

export interface SeqpacketServerOptions {
  /** Largest accepted message in bytes; larger ones are reported as `oversized`. Required. */
  readonly maxFrame: number;
  /** Permission bits of the socket file (default 0o666 so every user's job can connect). */
  readonly mode?: number;
  /**
   * A socket already bound to `path` and listening, inherited from the process that made it (a job's
   * first process starts `jobio run --attach` so): adopted instead of binding. Not a listening
   * SOCK_SEQPACKET Unix socket on `path`: EINVAL. close() removes the socket file as for a bound one.
   */
  readonly listenFd?: number;
  /** Where to read senders' cgroup and environ for `evidence` (e.g. /proc); none captured without it. */
  readonly procfs?: string;
  /**
   * Which parts of `evidence` are read (default all three): a receiver that uses only the program's
   * path spares a read of the cgroup file and of the whole environ per connection.
   */
  readonly evidence?: readonly ('cgroup' | 'environ' | 'exe')[];
  /** Connections beyond this are accepted and closed at once, and counted as refused (default 4096). */
  readonly maxConnections?: number;
  /** Open connections of one uid (SO_PEERCRED) beyond this are accepted and closed at once, counted as refusedPerUser (default 256). */
  readonly maxConnectionsPerUser?: number;
  /**
   * Connections kept for peers in a job cgroup (see jobCgroupPatterns): the other peers may hold
   * maxConnections minus these, so a flood from outside any job cannot shut out a job's processes.
   * Default: a quarter of maxConnections when jobCgroupPatterns are given, else 0.
   */
  readonly reservedConnections?: number;
  /**
   * ECMAScript patterns of job cgroup paths (the root-anchored layouts only the scheduler can place a
   * process in), matched at accept against each path of <procfs>/<pid>/cgroup of the peer. A pattern's
   * first capture group, when it took part in the match, is the uid of a systemd manager the peer must
   * not have (a user can name units in its own manager as it likes).
   */
  readonly jobCgroupPatterns?: readonly string[];
  /** Events waiting for JavaScript before new ones are dropped and counted (default 16384, 0 = unbounded). */
  readonly queueSize?: number;
  /** Bytes held by events waiting for JavaScript before new ones are dropped and counted (default 16 MiB, 0 = unbounded). */
  readonly queueBytes?: number;
  /**
   * Bytes one sender uid may hold in that queue (default queueBytes / 4, 0 = no per-uid bound): a
   * flooding user loses its own frames, not the others'. Losses are counted per uid (queueDroppedByUid).
   * The last quarter of queueBytes is kept for uids holding under a sixteenth of it, and every event is
   * charged at least queueBytes / queueSize.
   */
  readonly queueBytesPerUser?: number;
}

export interface SeqpacketServerStats {
  readonly listening: boolean;
  /** True while connections wait in the listen backlog (not yet accepted). */
  readonly pendingConnections: boolean;
  readonly accepted: number;
  readonly closed: number;
  /** Connections closed at once: beyond maxConnections, or their credentials unreadable. */
  readonly refused: number;
  /** Connections closed at once because their uid already had maxConnectionsPerUser open. */
  readonly refusedPerUser: number;
  /** Connections closed at once from a peer outside any job cgroup when only the reserved connections were left. */
  readonly refusedUnverified: number;
  /** The connections kept for peers in a job cgroup (reservedConnections as in force). */
  readonly reservedConnections: number;
  /** Connections refused at accept (any reason but unreadable credentials) by peer uid (decimal uid → count), uids without refusals left out. */
  readonly refusedByUid: Readonly<Record<string, number>>;
  /**
   * accept4() failures for lack of descriptors or memory (EMFILE, ENFILE, ENOMEM, ENOBUFS); after each
   * the listening socket is left alone for 100 ms (the peer waits in the backlog) instead of spinning.
   */
  readonly acceptErrors: number;
  readonly frames: number;
  readonly oversized: number;
  /** Events dropped because JavaScript fell behind (queue full, or the sender uid's share of it). */
  readonly queueDropped: number;
  readonly enqueued: number;
  readonly delivered: number;
  /** Bytes held by events waiting for JavaScript now (at most queueBytes). */
  readonly queuedBytes: number;
  /** queueDropped by sender uid (decimal uid → events dropped), uids without drops left out. */
  readonly queueDroppedByUid: Readonly<Record<string, number>>;
}

/** Error thrown by the constructor; `code` is ENOENT, EACCES, EADDRINUSE, ENAMETOOLONG, ENOTDIR, EPERM, EEXIST or EIO. */
export interface SeqpacketError extends Error {
  readonly code: string;
  readonly errno: number;
}

export declare class SeqpacketServer {
  /**
   * Binds and listens on `path` (a stale socket file is removed first; a live one or a non-socket file
   * is an error) and starts the receiving thread. Events arrive on the JavaScript thread via `onEvent`,
   * in turns: one uid's at a time and, within a uid, one process's at a time (the uid and pid of the
   * connection's peer at connect), so one connection's events come in the order it sent them, and
   * one process's connections in the order they were read, but other processes' may overtake them.
   * The server does not keep the process alive (see ref()).
   */
  constructor(path: string, options: SeqpacketServerOptions, onEvent: (event: SeqpacketEvent) => void);
  readonly path: string;
  /** Stops the thread, closes every connection and removes the socket file. Idempotent. */
  close(): void;
  stats(): SeqpacketServerStats;
  /** Make pending deliveries keep the event loop alive (default: they do not). */
  ref(): void;
  unref(): void;
}

export interface ChildrenUsage {
  readonly userMicros: number;
  readonly systemMicros: number;
  /** Peak resident set of the largest reaped descendant, in bytes. */
  readonly maxRssBytes: number;
}

/** getrusage(RUSAGE_CHILDREN): CPU time and peak RSS of every child this process has waited for. */
export declare function childrenUsage(): ChildrenUsage;

/**
 * An open-file-description lock on the whole file of `fd`, never waiting: "write" (exclusive) or
 * "read" (shared; over our own "write" an atomic downgrade). "busy" when another open file holds a
 * conflicting lock, "unsupported" where the file system has none. Released with the last descriptor.
 */
export declare function lockFile(fd: number, kind: 'write' | 'read'): 'locked' | 'busy' | 'unsupported';
