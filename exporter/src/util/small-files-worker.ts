// Many small pseudo-files read whole on one worker thread, with plain system calls, instead of each
// through libuv's thread pool.
//
// Why: a job_stats file of an idle target is a few KB; reading it through the pool is five round trips
// (open, fstat, read, the read that finds the end, close), and each round trip costs the process about
// 0.02 ms of CPU (a pool thread woken, the event loop woken back) where the system call itself costs a
// tenth of that. With 1,000 targets the round trips were most of an idle scrape. On the worker thread the
// calls run back to back, and one message carries the bytes of many files.
//
// Not on the event loop's thread: a pseudo-file read can stall on a busy server, and a stalled read there
// would stall every scrape and every collector. Here it stalls this worker (the waiting collector's update
// stays pending, as with a read stalled on the pool) and nothing else.
//
// The worker reads a file as streamPseudoFile does (the same flags, the same regular-file check on the
// opened descriptor, reads of the same size), and gives up on anything else: an error, a file that is not
// regular, one beyond the whole-file bound or at the caller's byte bound. The caller then reads that file
// its usual way, which gives the usual outcome, errors included.
import { Worker } from 'node:worker_threads';
import { constants } from 'node:fs';
import { OPEN_FLAGS } from './pseudo-files.js';

/** Files a request carries: with the bound below, at most 2 MiB of bytes in one message. */
const FILES_PER_REQUEST = 32;

/** How the files of one call are read whole. */
export interface WholeFileOptions {
  /** The read size, as a stream's chunk buffer (its reads return the same chunks). */
  readonly chunkBytes: number;
  /** The caller's byte bound (a file reaching it is left to the caller, who says it is cut). */
  readonly maxBytes: number;
  /** Bytes beyond which a file is left to the caller's streamed read. */
  readonly maxWholeBytes: number;
  /**
   * No file is opened at or after this time (Date.now() of the caller): the caller counts it as not
   * reached. Handed to the worker as the time left, so a caller's clock of its own is kept.
   */
  readonly notAfter: number;
  /** After a read returns this long after its file was opened (or at notAfter), no more reads. */
  readonly timeoutMs: number;
}

/** How the worker's read of one file ended. */
export type WholeFileResult =
  /** The chunks as the reads returned them; `late`: the time was up after the last (the rest was not read). */
  | { readonly chunks: readonly Buffer[]; readonly late: boolean }
  /** Not opened: notAfter had passed. */
  | 'not_reached'
  /** Left to the caller: an error, not a regular file, beyond maxWholeBytes, or at maxBytes. */
  | 'declined';

/** What the worker answers per file: [chunk lengths..., late (0/1)] or -1 not reached, -2 declined. */
type Answer = number[] | -1 | -2;
interface Reply {
  readonly id: number;
  readonly answers: Answer[];
  readonly bytes: ArrayBuffer;
}

// The worker's whole program, as source: the same code runs from the built JavaScript and from the
// TypeScript sources under tsx (a worker file would need a loader in the worker thread).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const buffers = new Map();
parentPort.on('message', ({ id, paths, options: f, leftMs }) => {
  const answers = [];
  const parts = [];
  let total = 0;
  const notAfter = Date.now() + leftMs;
  for (const path of paths) {
    if (Date.now() >= notAfter) { answers.push(-1); continue; }
    const deadline = Math.min(notAfter, Date.now() + f.timeoutMs);
    let chunk = buffers.get(f.chunkBytes);
    if (!chunk) buffers.set(f.chunkBytes, (chunk = Buffer.allocUnsafeSlow(f.chunkBytes)));
    const first = parts.length;
    let answer = -2;
    let fd = -1;
    try {
      fd = fs.openSync(path, ${OPEN_FLAGS});
      if ((fs.fstatSync(fd).mode & ${constants.S_IFMT}) === ${constants.S_IFREG}) {
        const lengths = [];
        let bytes = 0;
        let late = 0;
        let whole = true;
        for (;;) {
          const room = f.maxBytes - bytes;
          if (room <= 0) { whole = false; break; }
          const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, room), null);
          if (n === 0) break;
          bytes += n;
          if (bytes > f.maxWholeBytes) { whole = false; break; }
          parts.push(Buffer.from(chunk.subarray(0, n)));
          lengths.push(n);
          if (Date.now() >= deadline) { late = 1; break; }
        }
        if (whole) answer = [...lengths, late];
      }
    } catch {
      answer = -2;
    }
    if (fd >= 0) {
      try { fs.closeSync(fd); } catch { answer = -2; }
    }
    if (answer === -2) parts.length = first;
    answers.push(answer);
  }
  for (const p of parts) total += p.length;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) { bytes.set(p, at); at += p.length; }
  parentPort.postMessage({ id, answers, bytes: bytes.buffer }, [bytes.buffer]);
});
`;

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();

/** The one worker of the process, started at the first request (hosts without such files never start it). */
function theWorker(): Worker {
  if (worker) return worker;
  // Its heap holds a request's answers and little else: small generations keep its memory small (a
  // worker out of memory fails its requests, whose files are then streamed, and is started again).
  const started = new Worker(WORKER_SOURCE, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
  // Not what keeps the process alive: the requests waiting on it are.
  started.unref();
  started.on('message', (reply: Reply) => {
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    w?.resolve(reply);
  });
  const failAll = (err: Error): void => {
    if (worker === started) worker = undefined;
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  started.on('error', failAll);
  started.on('exit', (code) => failAll(new Error(`small-files worker exited (${code})`)));
  worker = started;
  return started;
}

function request(paths: readonly string[], options: WholeFileOptions): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const id = (nextId += 1);
    const w = theWorker();
    waiting.set(id, { resolve, reject });
    // While a request is waiting, the worker keeps the process alive (as a pending pool read does).
    w.ref();
    w.postMessage({ id, paths, options, leftMs: options.notAfter - Date.now() });
  }).finally(() => {
    if (waiting.size === 0) worker?.unref();
  });
}

function resultsOf(reply: Reply): WholeFileResult[] {
  let at = 0;
  return reply.answers.map((answer) => {
    if (answer === -1) return 'not_reached';
    if (answer === -2) return 'declined';
    const chunks = answer.slice(0, -1).map((length) => {
      const chunk = Buffer.from(reply.bytes, at, length);
      at += length;
      return chunk;
    });
    return { chunks, late: answer.at(-1) === 1 };
  });
}

/**
 * Reads the files at `paths` whole on the worker, a few at a time: `onResult` gets each file's result in
 * order, while the worker reads the next few. A worker that fails declines every file it did not answer.
 */
export async function readSmallFiles(paths: readonly string[], options: WholeFileOptions, onResult: (index: number, result: WholeFileResult) => void): Promise<void> {
  const slice = (k: number): Promise<WholeFileResult[]> => {
    const some = paths.slice(k, k + FILES_PER_REQUEST);
    return request(some, options).then(resultsOf, () => some.map((): WholeFileResult => 'declined'));
  };
  let pending = paths.length > 0 ? slice(0) : undefined;
  for (let k = 0; pending; k += FILES_PER_REQUEST) {
    const results = await pending;
    pending = k + FILES_PER_REQUEST < paths.length ? slice(k + FILES_PER_REQUEST) : undefined;
    for (const [i, result] of results.entries()) onResult(k + i, result);
  }
}
