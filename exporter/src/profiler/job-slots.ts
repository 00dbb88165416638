// Bounded cardinality for the job label (docs/architecture.md "Bounded cardinality"): at most `max` jobs have their own series.
// Membership is sticky: a job keeps its slot until it has been idle for the expiry, so its exported
// counters never jump or fall. Increments of jobs without a slot go to `_other` (sum over jobs stays
// true); when slots free up, the most active waiting jobs get them, starting from zero.
import { OTHER } from '../labels/reserved.js';

export { OTHER };

interface Waiting {
  activity: number;
  lastActiveMs: number;
}

export class JobSlots {
  private readonly members = new Map<string, number>(); // job → last active (ms)
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly max: number) {}

  /** The job label to credit `weight` of activity to now: the job itself, or `_other`. */
  route(jobid: string, weight: number, nowMs: number): string {
    if (this.members.has(jobid) || this.members.size < this.max) {
      this.members.set(jobid, nowMs);
      return jobid;
    }
    const w = this.waiting.get(jobid) ?? { activity: 0, lastActiveMs: nowMs };
    w.activity += weight;
    w.lastActiveMs = nowMs;
    this.waiting.set(jobid, w);
    return OTHER;
  }

  /** Expires idle members (returns them so their series can go) and gives free slots to the busiest waiting jobs. */
  maintain(nowMs: number, expiryMs: number): string[] {
    const expired: string[] = [];
    for (const [job, last] of this.members) {
      if (nowMs - last > expiryMs) {
        this.members.delete(job);
        expired.push(job);
      }
    }
    for (const [job, w] of this.waiting) if (nowMs - w.lastActiveMs > expiryMs) this.waiting.delete(job);
    const free = this.max - this.members.size;
    if (free > 0 && this.waiting.size > 0) {
      const promoted = [...this.waiting.entries()].sort((a, b) => b[1].activity - a[1].activity).slice(0, free);
      for (const [job, w] of promoted) {
        this.waiting.delete(job);
        this.members.set(job, w.lastActiveMs);
      }
    }
    return expired;
  }

  get ownCount(): number {
    return this.members.size;
  }

  get waitingCount(): number {
    return this.waiting.size;
  }
}
