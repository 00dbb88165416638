// Opens the --output file of `jobio run` so that nothing can corrupt it or turn it against someone else.
// - Never through a symbolic link (O_NOFOLLOW): one planted at the name in a shared directory would
//   make the run overwrite its target. Never a FIFO or device (opened without blocking, then checked),
//   never a file another user owns (their file, even where they let us write it).
// - Opened for appending (O_APPEND), and every record is one write (run-output.ts), so records are
//   whole lines whatever else writes the file.
// - Several runs given one name (`mpirun -np 4 jobio run -o out-%h.jsonl`: four runs on a host) find
//   each other through a lock on the file: the first takes it exclusively, truncates, and keeps it
//   shared; a later one finds it held, takes it shared and appends without truncating (and says so).
//   Where the file system has no locks (Lustre mounted noflock), every run truncates at start (before
//   any record is written) and appends: records stay whole, a collision is not reported.
import { constants, fstatSync, ftruncateSync, openSync, closeSync } from 'node:fs';

export type LockFn = (fd: number, kind: 'write' | 'read') => 'locked' | 'busy' | 'unsupported';

export interface RunOutputFile {
  readonly fd: number;
  /** Another run was already writing the file: this one appends to it. */
  readonly joined: boolean;
}

/** A run that found the file held waits this long for the holder to finish truncating. */
const JOIN_WAIT_MS = 5000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Opens `path` for this run's records; throws an Error whose message says why not. */
export function openRunOutput(path: string, lock: LockFn): RunOutputFile {
  let fd: number;
  try {
    // Read and write: a shared (read) lock needs a descriptor open for reading.
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new Error(`${path} is a symbolic link: jobio run never writes through one (one planted in a shared directory would overwrite its target)`);
    if (code === 'ENXIO') throw new Error(`${path} is not a regular file (a FIFO)`);
    throw err;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is not a regular file`);
    const uid = process.geteuid?.();
    if (uid !== undefined && st.uid !== uid) throw new Error(`${path} belongs to uid ${st.uid}, not to you (uid ${uid}): choose another --output`);
    const first = lock(fd, 'write');
    if (first === 'unsupported') {
      ftruncateSync(fd, 0);
      return { fd, joined: false };
    }
    if (first === 'locked') {
      ftruncateSync(fd, 0);
      lock(fd, 'read'); // an atomic downgrade: no other run can take it exclusively in between
      return { fd, joined: false };
    }
    // Held by another run: shared as soon as its holder has truncated (a moment).
    const until = Date.now() + JOIN_WAIT_MS;
    while (lock(fd, 'read') !== 'locked') {
      if (Date.now() > until) throw new Error(`${path} is locked by another program`);
      sleepSync(10);
    }
    return { fd, joined: true };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}
