// The budget of job_stats entries remembered by all targets together (--collector.lustre_jobstats.
// max-total-entries): each entry costs memory (its last values), and a per-target cap alone let four
// huge targets hold over a gigabyte. The bound is hard, and fair to small targets: every target may
// always hold a floor of entries (half the budget split over max-targets), and only the entries above
// a target's floor share the other half. So a target flooded with job ids cannot take the room of the
// new jobs of the others, and the total never exceeds the budget. Entries already remembered are never
// evicted (their increments stay exact); new ones beyond the budget are dropped and counted.
export class EntryBudget {
  /** Entries every target may hold whatever the others hold. */
  readonly floor: number;
  /** Room shared by the entries above each target's floor. */
  private readonly pool: number;
  /** Entries held above their target's floor, all targets together. */
  private excess = 0;

  constructor(total: number, maxTargets: number) {
    this.floor = Number.isFinite(total) && Number.isFinite(maxTargets) ? Math.floor(total / 2 / maxTargets) : 0;
    this.pool = total - this.floor * (Number.isFinite(maxTargets) ? maxTargets : 0);
  }

  /** Whether a target holding `size` entries may take one more (and if so, it is taken). */
  take(size: number): boolean {
    if (size < this.floor) return true;
    if (this.excess >= this.pool) return false;
    this.excess += 1;
    return true;
  }

  /** A target holding `size` entries forgets `count` of them. */
  release(size: number, count = 1): void {
    this.excess -= Math.max(0, Math.min(count, size - this.floor));
  }
}

/** No budget: only the per-target cap applies. */
export const UNLIMITED_BUDGET = new EntryBudget(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
