// The processes of another user that `jobio run`'s private socket refused. A process of the command
// that changed user (a root job dropping privileges, a set-user-ID helper) starts its children and
// the programs it execs as that user; the private socket (0600 in a 0700 directory) refuses them, as
// it must: no other user's process may write into the run. Each such process says once that it was
// refused, on a second socket that any user may reach and that carries nothing else. Only the
// kernel's credentials of that message count (pid and uid). The path the kernel gives for the
// process's executable names it; when the process is gone before that is read (a short child), the
// program name the message carries does, as a label only. Nothing else is taken from it, so a refused
// process cannot put anything into the run's figures. Anyone who finds the socket can add to the
// count, and only to it.
import { basename } from 'node:path';
import { hasControlChars } from '../labels/control-chars.js';
import { loadSeqpacketAddon, type SeqpacketEvent, type SeqpacketServer } from './native.js';

/** A refused process: the uid it ran as and the name of its program (the kernel's exe link). */
export interface RefusedProcess {
  readonly uid: number;
  readonly name: string;
}

/** Processes remembered one by one; beyond, they are only counted (a flood cannot grow the run). */
const MAX_REMEMBERED = 4096;
/** A message is the program's name (at most 63 bytes): anything longer is dropped unread. */
const MAX_MESSAGE = 64;
/** `name` if it is a plain file name (no slash) without control characters, printable as it is; else nothing. */
function plainName(name: string): string | undefined {
  return name !== '' && name !== '?' && !name.includes('/') && !name.includes('\uFFFD') && !hasControlChars(name) ? name : undefined;
}

/** A name the process gave: a file name (no slash) without control characters, or nothing. */
export function claimedName(data: Buffer | undefined): string | undefined {
  return plainName(data?.toString('utf8') ?? '');
}

/**
 * What the messages of refused processes say, bounded: each process once by pid (a pid seen again,
 * reused or repeating itself, is not counted again), MAX_REMEMBERED of them named, the rest only
 * counted, one a connection whatever it sends on it.
 */
export class RefusedTally {
  private readonly byPid = new Map<number, RefusedProcess>();
  /** processes beyond MAX_REMEMBERED */
  private uncounted = 0;
  /** the open connections whose first message was read (at most the server's maxConnections) */
  private readonly heard = new Set<number>();

  /** `runUid`: the run's own uid, whose processes the private socket never refuses: their messages are not counted. */
  constructor(
    private readonly runUid: number,
    private readonly maxRemembered = MAX_REMEMBERED,
  ) {}

  onEvent(event: SeqpacketEvent): void {
    if (event.type === 'close') this.heard.delete(event.connection);
    if (event.type !== 'frame' || event.uid === this.runUid || event.uid === 0) return;
    // A process says it once: what else comes on its connection counts for nothing.
    if (this.heard.has(event.connection)) return;
    this.heard.add(event.connection);
    if (this.byPid.has(event.pid)) return;
    if (this.byPid.size >= this.maxRemembered) {
      this.uncounted++;
      return;
    }
    // The kernel's path names the program, printed as it is only if it is a plain name (a file name
    // may hold a newline: the summary would show lines another user wrote).
    const exe = event.evidence?.exe;
    const byKernel = exe !== undefined && exe !== '' ? plainName(basename(exe)) : undefined;
    this.byPid.set(event.pid, { uid: event.uid, name: byKernel ?? claimedName(event.data) ?? '(unknown program)' });
  }

  /** The refused processes by pid, and how many more were only counted. */
  refused(): { readonly byPid: ReadonlyMap<number, RefusedProcess>; readonly more: number } {
    return { byPid: this.byPid, more: this.uncounted };
  }
}

/** The socket refused processes say so on, and its tally. */
export class RefusedProcesses {
  private readonly tally: RefusedTally;
  private readonly server: SeqpacketServer;
  private closed = false;

  /**
   * Listens on `socketPath` (mode 0666: the refused processes are another user's), or on the socket
   * `listenFd` already listening there (a job's first process made it: `jobio run --attach`).
   * `runUid`: the run's own uid (RefusedTally).
   */
  constructor(socketPath: string, runUid: number, procfs: string, onHandled?: () => void, listenFd?: number) {
    this.tally = new RefusedTally(runUid);
    const addon = loadSeqpacketAddon();
    // Only the exe link is read per connection (the name is all the tally keeps): not the cgroup file
    // nor the whole environ, which another user may make megabytes long and connect again and again.
    const options = { maxFrame: MAX_MESSAGE, mode: 0o666, procfs, evidence: ['exe'] as const, maxConnections: 256, maxConnectionsPerUser: 64, ...(listenFd !== undefined ? { listenFd } : {}) };
    this.server = new addon.SeqpacketServer(socketPath, options, (event) => {
      if (!this.closed) this.tally.onEvent(event);
      onHandled?.();
    });
  }

  /** The refused processes by pid, and how many more were only counted. */
  refused(): { readonly byPid: ReadonlyMap<number, RefusedProcess>; readonly more: number } {
    return this.tally.refused();
  }

  /** True once every message sent so far has been read and handled (as ProfilerReceiver.drained). */
  drained(): boolean {
    if (this.closed) return true;
    const s = this.server.stats();
    return !s.pendingConnections && s.accepted === s.closed && s.enqueued === s.delivered;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.server.close();
  }
}
