// The exported series of one target and who may have one (docs/architecture.md "Bounded cardinality" and "Lustre: counters the exporter owns").
//
// - At most `maxJobs` jobs have their own series; membership is sticky: a job keeps its series until
//   it has had no increment for `expiryMs`. Free slots go to the most active waiting jobs (requests in
//   this scrape); the increments of every other job, and of malformed entries, go to jobid="_other".
//   So no exported counter ever decreases or jumps, and the sum over jobid loses nothing.
// - Counters are the exporter's own: values only ever grow by exact increments.
// - A counter that appears after the exporter's first collection is exported at 0 in the scrape that
//   creates it and in every scrape of the grace period after its birth, and carries its increments
//   from then on. Prometheus sees the series start at 0, so `increase()` over the job's life includes
//   the first increment (a series born at its value would hide it); the grace lets every scraper of
//   an HA pair see the 0, not only the one that scraped first. At the first collection, counters
//   start at the file's values.
import { u64Add, type U64 } from './u64.js';
import { OTHER } from '../labels/reserved.js';
import { idleFor, SlotTable } from '../labels/slot-table.js';

export interface SeriesLabels {
  readonly jobid: string;
  readonly user: string;
  /** The executable (`%e`) of entries without a job id. */
  readonly process?: string;
}

export interface SeriesState {
  readonly key: string;
  readonly labels: SeriesLabels;
  /** Value per field number; undefined while the field has never moved. */
  readonly values: (U64 | undefined)[];
  /** Scrape in which each field first got a value (exported as 0 then); -1 at the first collection. */
  readonly bornAt: number[];
  /** When each field first got a value (ms), for the grace period. */
  readonly bornMs: number[];
  /** Latest scrape that created a field: until the next one has shown its value, no expiry. */
  lastBornEpoch: number;
  /** When the latest field was created (ms). */
  lastBornMs: number;
  lastCredit: number;
}

/** Increments of one scrape for one series key. */
export interface SeriesGroup {
  readonly key: string;
  readonly labels: SeriesLabels;
  readonly deltas: (U64 | undefined)[];
  activity: number;
}

export const OTHER_KEY = '\u0001other';
export const OTHER_LABELS: SeriesLabels = { jobid: OTHER, user: OTHER };

export function seriesKey(labels: SeriesLabels): string {
  return `${labels.jobid}\u0000${labels.user}\u0000${labels.process ?? ''}`;
}

export function mergeDeltas(into: (U64 | undefined)[], from: readonly (U64 | undefined)[]): void {
  for (let f = 0; f < from.length; f += 1) {
    const d = from[f];
    if (d === undefined || d === 0) continue;
    const before = into[f];
    into[f] = before === undefined ? d : u64Add(before, d);
  }
}

export class SeriesBook {
  readonly series = new Map<string, SeriesState>();
  /** Which jobs have a series: folded jobs compete for free slots by this scrape's requests. */
  private readonly slots: SlotTable;
  /** Jobs whose series expired, since start. */
  expiredTotal = 0;
  /** Jobs whose increments went to `_other` in the last scrape for want of a slot. */
  foldedJobs = 0;

  /** `now` of the latest settle() and of the one before. */
  private settledAt = Number.NEGATIVE_INFINITY;
  private previousSettledAt = Number.NEGATIVE_INFINITY;

  /** `graceMs`: how long a new counter is exported at 0 after its birth (besides its first scrape). */
  constructor(
    maxJobs: number,
    private readonly expiryMs: number,
    readonly graceMs = 0,
  ) {
    this.slots = new SlotTable({ max: maxJobs, folded: 'compete' });
  }

  get memberCount(): number {
    return this.slots.memberCount;
  }

  /** Hands one scrape's increments to series. `groups` is keyed by seriesKey (OTHER_KEY for malformed). */
  settle(groups: ReadonlyMap<string, SeriesGroup>, now: number, epoch: number, baseline: boolean): void {
    this.previousSettledAt = this.settledAt;
    this.settledAt = now;
    // Expire first, so the slots freed now go to waiting jobs in this same scrape. A series present in
    // this scrape (even without increments) is alive; one whose first value is not shown yet must stay.
    const mayGo = (key: string): boolean => {
      const s = this.series.get(key);
      return !groups.has(key) && (s === undefined || this.valuesShown(s, epoch));
    };
    for (const key of this.slots.expire(now, this.expiryMs, mayGo)) {
      this.series.delete(key);
      this.expiredTotal += 1;
    }
    const waiting: SeriesGroup[] = [];
    for (const [key, g] of groups) {
      if (key === OTHER_KEY) continue;
      const s = this.series.get(key);
      if (s) {
        this.slots.touch(key, now);
        this.apply(s, g.deltas, now, epoch, baseline);
      } else {
        waiting.push(g);
      }
    }
    // Activity counts per scrape: a job folded now competes afresh next time.
    const chosen = new Set(this.slots.fillFrom(waiting, now));
    const folded: (U64 | undefined)[] = [];
    const malformed = groups.get(OTHER_KEY);
    if (malformed) mergeDeltas(folded, malformed.deltas);
    this.foldedJobs = 0;
    for (const g of waiting) {
      if (chosen.has(g.key)) {
        this.apply(this.create(g.key, g.labels), g.deltas, now, epoch, baseline);
      } else {
        this.foldedJobs += 1;
        mergeDeltas(folded, g.deltas);
      }
    }
    const other = this.series.get(OTHER_KEY);
    if (folded.some((d) => d !== undefined && d !== 0)) {
      this.apply(other ?? this.create(OTHER_KEY, OTHER_LABELS), folded, now, epoch, baseline);
    } else if (other && this.expired(other, now, epoch)) {
      this.series.delete(OTHER_KEY);
    }
  }

  /**
   * Idle for the expiry, and every value already shown once: a counter created in the previous scrape
   * was exported as 0 there, so dropping it now would hide its first increment from Prometheus.
   */
  private expired(s: SeriesState, now: number, epoch: number): boolean {
    return idleFor(s.lastCredit, now, this.expiryMs) && this.valuesShown(s, epoch);
  }

  /** Whether the previous scrape exported every field of `s` at its value (none still at its first 0). */
  private valuesShown(s: SeriesState, epoch: number): boolean {
    return s.lastBornEpoch < epoch - 1 && !inGrace(s.lastBornMs, this.previousSettledAt, this.graceMs);
  }

  /** The value to expose now for field `f` of `s` (settled in scrape `epoch`): 0 while it is new. */
  exportedValue(s: SeriesState, f: number, epoch: number): U64 | undefined {
    const v = s.values[f];
    if (v === undefined) return undefined;
    return s.bornAt[f] === epoch || (s.bornAt[f] !== -1 && inGrace(s.bornMs[f] ?? Number.NEGATIVE_INFINITY, this.settledAt, this.graceMs)) ? 0 : v;
  }

  private create(key: string, labels: SeriesLabels): SeriesState {
    const s: SeriesState = { key, labels, values: [], bornAt: [], bornMs: [], lastBornEpoch: -1, lastBornMs: Number.NEGATIVE_INFINITY, lastCredit: 0 };
    this.series.set(key, s);
    return s;
  }

  private apply(s: SeriesState, deltas: readonly (U64 | undefined)[], now: number, epoch: number, baseline: boolean): void {
    for (let f = 0; f < deltas.length; f += 1) {
      const d = deltas[f];
      if (d === undefined || d === 0) continue;
      const before = s.values[f];
      if (before === undefined) {
        s.values[f] = d;
        s.bornAt[f] = baseline ? -1 : epoch;
        s.bornMs[f] = now;
        if (!baseline) {
          s.lastBornEpoch = epoch;
          s.lastBornMs = now;
        }
      } else {
        s.values[f] = u64Add(before, d);
      }
    }
    s.lastCredit = now;
  }
}

/** Whether a counter born at `bornMs` is still exported at 0 at `now`. */
function inGrace(bornMs: number, now: number, graceMs: number): boolean {
  return now - bornMs < graceMs;
}
