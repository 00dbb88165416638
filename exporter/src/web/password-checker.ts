// Bounded, off-the-event-loop bcrypt checks for basic auth. Each wrong password costs ~0.1 s of CPU
// at cost 10; done on the main thread, 50 parallel bad logins stalled every scrape for seconds. Here
// the checks run in a small pool of worker threads, and at most `maxPending` checks may be running or
// waiting at once: beyond that a login attempt is answered "busy" at once instead of queueing
// without bound, so one user's flood costs a bounded amount of CPU and memory.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Leave at least one core to the event loop: at most 2 workers, 1 on a 2-core host. */
export const DEFAULT_WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));
export const DEFAULT_MAX_PENDING = 32;

interface CheckRequest {
  readonly id: number;
  readonly password: string;
  readonly hash: string;
}
interface CheckReply {
  readonly id: number;
  readonly ok: boolean;
}

// The worker's whole program, as source: the same code runs from the built JavaScript and from the
// TypeScript sources under tsx (a worker *file* would need a loader in the worker thread). bcryptjs
// is required by absolute path, so the worker does not depend on the working directory.
const BCRYPTJS = createRequire(import.meta.url).resolve('bcryptjs');
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const bcrypt = require(${JSON.stringify(BCRYPTJS)});
parentPort.on('message', (req) => {
  let ok = false;
  try { ok = bcrypt.compareSync(req.password, req.hash); } catch { ok = false; }
  parentPort.postMessage({ id: req.id, ok });
});
`;

interface Job {
  readonly request: CheckRequest;
  readonly resolve: (ok: boolean) => void;
}

export class PasswordChecker {
  private readonly idle: Worker[] = [];
  private readonly running = new Map<Worker, Job>();
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(
    workers = DEFAULT_WORKERS,
    private readonly maxPending = DEFAULT_MAX_PENDING,
  ) {
    for (let i = 0; i < workers; i++) this.idle.push(this.spawn());
  }

  /** Checks in progress or waiting. */
  get pending(): number {
    return this.running.size + this.queue.length;
  }

  /** true/false: the password matches the hash or not; 'busy': too many checks pending, none started. */
  check(password: string, hash: string): Promise<boolean | 'busy'> {
    if (this.pending >= this.maxPending) return Promise.resolve('busy');
    return new Promise((resolve) => {
      this.queue.push({ request: { id: this.nextId++, password, hash }, resolve });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const all = [...this.idle, ...this.running.keys()];
    this.idle.length = 0;
    for (const job of [...this.running.values(), ...this.queue]) job.resolve(false);
    this.running.clear();
    this.queue.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    worker.on('message', (reply: CheckReply) => {
      const job = this.running.get(worker);
      this.running.delete(worker);
      this.idle.push(worker);
      if (job && job.request.id === reply.id) job.resolve(reply.ok);
      this.dispatch();
    });
    worker.on('error', () => {
      // A crashed worker fails its check closed (no access) and is replaced.
      this.running.get(worker)?.resolve(false);
      this.running.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
      this.idle.push(this.spawn());
      this.dispatch();
    });
    return worker;
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop() as Worker;
      const job = this.queue.shift() as Job;
      this.running.set(worker, job);
      worker.postMessage(job.request);
    }
  }
}
