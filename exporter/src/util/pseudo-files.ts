// The one way the collectors read files under a configurable root (--path.procfs, --path.sysfs,
// --path.rootfs, --path.lustre): Lustre parameters, cgroup files, /proc/<pid>, passwd.
//
// Those roots can hold anything a local user or a bad capture puts there: a FIFO named `job_stats`
// blocks a plain open() for ever (and with it one of libuv's four threads: four such files stall every
// file read of the process), a device never ends, a 2 GB file costs 2 GB if read whole. So every file
// is opened with O_NONBLOCK (a FIFO opens at once), must be a regular file by fstat() of the opened
// descriptor (no race with a rename), and is read in bounded chunks up to a byte limit.
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';

/** The file exists but is not one the exporter reads: a FIFO, a device, a socket, a directory. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
}

/** The file is larger than the caller's bound (readPseudoFile only; streams stop and say so). */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';
}

/** How every file under the configurable roots is opened: a FIFO opens at once, no terminal is taken. */
export const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
export const DEFAULT_CHUNK_BYTES = 1 << 20;
/** Bound of a whole-file read: stats, cgroup and /proc/<pid> files are a few KB, passwd a few MB. */
export const DEFAULT_MAX_WHOLE_BYTES = 64 << 20;

function kindOf(mode: number): string {
  switch (mode & constants.S_IFMT) {
    case constants.S_IFIFO:
      return 'a FIFO';
    case constants.S_IFCHR:
      return 'a character device';
    case constants.S_IFBLK:
      return 'a block device';
    case constants.S_IFSOCK:
      return 'a socket';
    case constants.S_IFDIR:
      return 'a directory';
    default:
      return 'not a regular file';
  }
}

async function openRegular(path: string): Promise<FileHandle> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    const { mode } = await handle.stat();
    if ((mode & constants.S_IFMT) !== constants.S_IFREG) throw new NotRegularFileError(`${path} is ${kindOf(mode)}, not a regular file: not read`);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

export interface StreamOptions {
  readonly signal?: AbortSignal | undefined;
  /** Stop after this many bytes (the read is then `truncated`). */
  readonly maxBytes: number;
  readonly chunkBytes?: number;
  /** A chunk buffer to reuse (its length is the chunk size): callers reading many files keep one. */
  readonly buffer?: Buffer;
  /**
   * A second buffer of the same length: with it, the next chunk is read (on libuv's thread pool) while
   * onChunk works on the current one, instead of the two waiting for each other. For big files whose
   * chunks take as long to parse as to read.
   */
  readonly spare?: Buffer;
}

export interface StreamResult {
  readonly bytes: number;
  /** The file had more than maxBytes, or the consumer asked to stop: the rest was not read. */
  readonly truncated: boolean;
}

/**
 * Reads a regular file chunk by chunk into `onChunk` (the buffer is reused: copy what you keep; return
 * false to stop early). Memory is one chunk (two with `spare`) whatever the file size. Pseudo-files
 * (size 0 in fstat) are read until read() returns 0, like cat. Reads stay sequential, one at a time:
 * with `spare`, the read of the next chunk is only started earlier.
 */
export async function streamPseudoFile(path: string, onChunk: (chunk: Buffer) => unknown, options: StreamOptions): Promise<StreamResult> {
  const handle = await openRegular(path);
  /** The buffer the next read fills, and (with a spare) the one onChunk has. */
  let current = options.buffer ?? Buffer.allocUnsafe(Math.max(1, Math.min(options.chunkBytes ?? DEFAULT_CHUNK_BYTES, options.maxBytes + 1)));
  let other = options.spare;
  let bytes = 0;
  /** Starts the next read: a chunk, or 1 byte once at the bound (to tell whether anything is left). */
  const readInto = (into: Buffer): Promise<{ bytesRead: number; atBound: boolean }> => {
    options.signal?.throwIfAborted();
    const room = options.maxBytes - bytes;
    const atBound = room <= 0;
    return handle.read(into, 0, atBound ? 1 : Math.min(into.length, room), null).then(({ bytesRead }) => ({ bytesRead, atBound }));
  };
  let pending: Promise<{ bytesRead: number; atBound: boolean }> | undefined;
  try {
    pending = readInto(current);
    for (;;) {
      const { bytesRead, atBound } = await pending;
      pending = undefined;
      // Exactly at the bound: truncated only if something is left.
      if (atBound) return { bytes, truncated: bytesRead > 0 };
      if (bytesRead === 0) return { bytes, truncated: false };
      bytes += bytesRead;
      const filled = current;
      if (other) {
        // Read ahead into the other buffer (onChunk is done with it) while onChunk has this one.
        pending = readInto(other);
        current = other;
        other = filled;
      }
      if (onChunk(filled.subarray(0, bytesRead)) === false) return { bytes, truncated: true };
      pending ??= readInto(current);
    }
  } finally {
    // A read still running must end before its descriptor is closed (an early stop, a throw).
    if (pending) await pending.catch(() => undefined);
    await handle.close();
  }
}

/** Reads a whole (small) regular file; FileTooLargeError beyond maxBytes. */
export async function readPseudoFile(path: string, options: { readonly signal?: AbortSignal | undefined; readonly maxBytes?: number } = {}): Promise<Buffer> {
  const parts: Buffer[] = [];
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_WHOLE_BYTES;
  // Small chunks: these files are a few KB, and one buffer of the bound per read would waste memory.
  const { truncated } = await streamPseudoFile(
    path,
    (c) => {
      parts.push(Buffer.from(c));
      return undefined;
    },
    { signal: options.signal, maxBytes, chunkBytes: 64 << 10 },
  );
  if (truncated) throw new FileTooLargeError(`${path} is larger than ${maxBytes} bytes: not read`);
  const [only] = parts;
  return parts.length === 1 && only !== undefined ? only : Buffer.concat(parts);
}

/**
 * As readPseudoFile, synchronously, for the few reads that must not yield (the profiler's job claim
 * checks keep one process's frames in order): the same non-blocking open, regular files only, bounded.
 */
export function readPseudoFileSync(path: string, maxBytes: number = DEFAULT_MAX_WHOLE_BYTES): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    const { mode } = fstatSync(fd);
    if ((mode & constants.S_IFMT) !== constants.S_IFREG) throw new NotRegularFileError(`${path} is ${kindOf(mode)}, not a regular file: not read`);
    const parts: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 << 10);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw new FileTooLargeError(`${path} is larger than ${maxBytes} bytes: not read`);
      parts.push(chunk.subarray(0, n));
    }
    return Buffer.concat(parts, total);
  } finally {
    closeSync(fd);
  }
}

/** A path that does not exist, or one of whose components is not a directory. */
export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The entries of a directory, sorted; [] when it does not exist (a layout this host does not have).
 * A directory that exists but cannot be listed (EACCES, EIO, ELOOP) throws: it must not pass for absent.
 */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** As listDir, synchronously (for `jobio run`'s one reading before its command starts). */
export function listDirSync(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}
