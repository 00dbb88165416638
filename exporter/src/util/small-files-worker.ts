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
// would stall every scrape and every collector. Here it stalls this worker, and only until the request's
// deadline (plus STALL_GRACE_MS): its files are then not reached this scrape and the next request goes to
// a new worker (SmallFilesWorker, below).
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
export const WORKER_SOURCE = `
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

/**
 * How long after the request's notAfter a healthy worker has answered: it opens nothing after notAfter
 * and ends a file's reads at its first read returning after it, so only a read that does not return
 * (a stalled server's pseudo-file) keeps it longer.
 */
export const STALL_GRACE_MS = 1000;

/** Workers at most stuck in a read at once; past it, files are declined (streamed through the pool). */
const MAX_STALLED = 2;

/**
 * The worker thread of a process and the requests waiting on it. A request not answered STALL_GRACE_MS
 * after its notAfter gives its files as not reached (the caller ends them at their deadline, as a
 * streamed read stalled that long would be cut) and its worker is told to end, which it does once its
 * read returns; later requests go to a new worker. While MAX_STALLED workers are stuck, files are
 * declined instead (the caller streams them through the thread pool, with its deadlines), so a stalled
 * server costs at most that many threads, not one more per scrape.
 */
export class SmallFilesWorker {
  private worker: Worker | undefined;
  /** Workers told to end while stuck in a read: they leave the set when they exit. */
  private readonly stalled = new Set<Worker>();
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (reply: Reply | undefined) => void; reject: (err: Error) => void; timer: NodeJS.Timeout }>();

  constructor(private readonly source: string = WORKER_SOURCE) {}

  /** Workers stuck in a read, not yet ended. */
  get stalledWorkers(): number {
    return this.stalled.size;
  }

  /** Started at the first request (hosts without such files never start it). */
  private theWorker(): Worker {
    if (this.worker) return this.worker;
    // Its heap holds a request's answers and little else: small generations keep its memory small (a
    // worker out of memory fails its requests, whose files are then streamed, and is started again).
    const started = new Worker(this.source, { eval: true, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
    // Not what keeps the process alive: the requests waiting on it are.
    started.unref();
    started.on('message', (reply: Reply) => {
      const w = this.waiting.get(reply.id);
      if (!w || this.worker !== started) return;
      this.waiting.delete(reply.id);
      clearTimeout(w.timer);
      w.resolve(reply);
    });
    const failAll = (err: Error): void => {
      if (this.worker !== started) return;
      this.worker = undefined;
      this.settleAll((w) => w.reject(err));
    };
    started.on('error', failAll);
    started.on('exit', (code) => {
      this.stalled.delete(started);
      failAll(new Error(`small-files worker exited (${code})`));
    });
    this.worker = started;
    return started;
  }

  private settleAll(settle: (w: { resolve: (reply: Reply | undefined) => void; reject: (err: Error) => void }) => void): void {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      settle(w);
    }
    this.waiting.clear();
  }

  /** Its requests unanswered past their time: each gives its files as not reached, and the worker is told to end. */
  private leaveBehind(w: Worker): void {
    if (this.worker !== w) return;
    this.worker = undefined;
    this.settleAll((waiting) => waiting.resolve(undefined));
    this.stalled.add(w);
    // Nothing waits on it any more: it must not keep the process from exiting.
    w.unref();
    void w.terminate();
  }

  /** The worker's reply, undefined when it did not answer in time; rejected when it failed or too many are stuck. */
  request(paths: readonly string[], options: WholeFileOptions): Promise<Reply | undefined> {
    if (this.stalled.size >= MAX_STALLED) return Promise.reject(new Error('small-files workers stuck in reads'));
    return new Promise<Reply | undefined>((resolve, reject) => {
      const id = (this.nextId += 1);
      const w = this.theWorker();
      const leftMs = options.notAfter - Date.now();
      const timer = setTimeout(() => this.leaveBehind(w), Math.max(0, leftMs) + STALL_GRACE_MS);
      timer.unref();
      this.waiting.set(id, { resolve, reject, timer });
      // While a request is waiting, the worker keeps the process alive (as a pending pool read does).
      w.ref();
      w.postMessage({ id, paths, options, leftMs });
    }).finally(() => {
      if (this.waiting.size === 0) this.worker?.unref();
    });
  }
}

const processWorker = new SmallFilesWorker();

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
 * order, while the worker reads the next few. A worker that fails declines every file it did not
 * answer; one that stalls gives them as not reached (SmallFilesWorker).
 */
export async function readSmallFiles(
  paths: readonly string[],
  options: WholeFileOptions,
  onResult: (index: number, result: WholeFileResult) => void,
  worker: SmallFilesWorker = processWorker,
): Promise<void> {
  const slice = (k: number): Promise<WholeFileResult[]> => {
    const some = paths.slice(k, k + FILES_PER_REQUEST);
    return worker.request(some, options).then(
      (reply) => (reply ? resultsOf(reply) : some.map((): WholeFileResult => 'not_reached')),
      () => some.map((): WholeFileResult => 'declined'),
    );
  };
  let pending = paths.length > 0 ? slice(0) : undefined;
  for (let k = 0; pending; k += FILES_PER_REQUEST) {
    const results = await pending;
    pending = k + FILES_PER_REQUEST < paths.length ? slice(k + FILES_PER_REQUEST) : undefined;
    for (const [i, result] of results.entries()) onResult(k + i, result);
  }
}
