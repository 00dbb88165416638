// Bounded, off-the-event-loop bcrypt checks for basic auth. Each wrong password costs ~0.1 s of CPU
// at cost 10; done on the main thread, 50 parallel bad logins stalled every scrape for seconds. Here
// the checks run in a small pool of worker threads, and at most `maxPending` checks may be running or
// waiting at once: beyond that a login attempt is answered "busy" at once instead of queueing
// without bound, so one user's flood costs a bounded amount of CPU and memory.
//
// Fair between peers (client addresses): one peer may hold at most a quarter of the queue, and the
// workers take the waiting checks round-robin over peers. Without it, after a restart (no verified
// credentials cached yet) a flood of wrong passwords from one address kept the queue full, and the
// real scraper got 13-15 consecutive 429s; now its check waits behind at most one check per other peer.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** Leave at least one core to the event loop: at most 2 workers, 1 on a 2-core host. */
export const DEFAULT_WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));
export const DEFAULT_MAX_PENDING = 32;
/** The share of maxPending one peer may hold. */
const PEER_SHARE = 4;

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
  readonly peer: string;
  readonly resolve: (ok: boolean) => void;
}

export class PasswordChecker {
  private readonly idle: Worker[] = [];
  private readonly running = new Map<Worker, Job>();
  /** Waiting checks per peer; the map's order is the round-robin order (a served peer goes last). */
  private readonly queues = new Map<string, Job[]>();
  /** Checks running or waiting per peer. */
  private readonly perPeer = new Map<string, number>();
  private queued = 0;
  private nextId = 0;
  private readonly maxPerPeer: number;

  constructor(
    workers = DEFAULT_WORKERS,
    private readonly maxPending = DEFAULT_MAX_PENDING,
  ) {
    this.maxPerPeer = Math.max(1, Math.floor(maxPending / PEER_SHARE));
    for (let i = 0; i < workers; i++) this.idle.push(this.spawn());
  }

  /** Checks in progress or waiting. */
  get pending(): number {
    return this.running.size + this.queued;
  }

  /**
   * true/false: the password matches the hash or not; 'busy': too many checks pending (in all, or from
   * this peer), none started. `peer` is the client's address.
   */
  check(password: string, hash: string, peer = ''): Promise<boolean | 'busy'> {
    const mine = this.perPeer.get(peer) ?? 0;
    if (this.pending >= this.maxPending || mine >= this.maxPerPeer) return Promise.resolve('busy');
    this.perPeer.set(peer, mine + 1);
    return new Promise<boolean>((resolve) => {
      const job: Job = { request: { id: this.nextId++, password, hash }, peer, resolve };
      const queue = this.queues.get(peer);
      if (queue) queue.push(job);
      else this.queues.set(peer, [job]);
      this.queued += 1;
      this.dispatch();
    }).finally(() => {
      const left = (this.perPeer.get(peer) ?? 1) - 1;
      if (left > 0) this.perPeer.set(peer, left);
      else this.perPeer.delete(peer);
    });
  }

  async close(): Promise<void> {
    const all = [...this.idle, ...this.running.keys()];
    this.idle.length = 0;
    for (const job of [...this.running.values(), ...[...this.queues.values()].flat()]) job.resolve(false);
    this.running.clear();
    this.queues.clear();
    this.queued = 0;
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
    while (this.idle.length > 0 && this.queued > 0) {
      const job = this.nextJob();
      if (!job) return;
      const worker = this.idle.pop() as Worker;
      this.running.set(worker, job);
      worker.postMessage(job.request);
    }
  }

  /** The oldest waiting check of the peer served longest ago; that peer goes to the end of the round. */
  private nextJob(): Job | undefined {
    for (const [peer, queue] of this.queues) {
      const job = queue.shift();
      this.queues.delete(peer);
      if (queue.length > 0) this.queues.set(peer, queue);
      if (job) {
        this.queued -= 1;
        return job;
      }
    }
    return undefined;
  }
}
