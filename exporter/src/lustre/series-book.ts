// The exported series of one target and who may have one (docs/architecture.md "Bounded cardinality" and "Lustre: counters the exporter owns").
//
// - At most `maxJobs` jobs have their own series; membership is sticky: a job keeps its series until
//   it has had no increment for `expiryMs`. While free slots hold every new job, new jobs get theirs
//   at once. Otherwise slots are handed out (and expired) only when a window of the exporter's clock
//   closes (the density window): free slots go to the most active waiting jobs (requests in the
//   window), the increments of every other job, and of malformed entries, go to jobid="_other"; until
//   then a job without a slot waits, its increments held. So one scraper or three see the same series,
//   no exported counter ever decreases or jumps, and at each window's close the sum over jobid loses nothing.
// - Counters are the exporter's own: values only ever grow by exact increments.
// - A counter that appears after the exporter's first collection is exported at 0 in the scrape that
//   creates it and in every scrape of the grace period after its birth, and carries its increments
//   from then on. Prometheus sees the series start at 0, so `increase()` over the job's life includes
//   the first increment (a series born at its value would hide it); the grace lets every scraper of
//   an HA pair see the 0, not only the one that scraped first. At the first collection, counters
//   start at the file's values.
import { u64Add, type U64 } from '../util/u64.js';
import { OTHER } from '../labels/reserved.js';
import { idleFor, SlotTable, type SlotCandidate } from '../labels/slot-table.js';
import { DeltaRows, mergeDeltas } from './delta-rows.js';
import { KeyRows } from './key-rows.js';
import { mapGroups, type GroupTable } from './group-table.js';

export { mergeDeltas } from './delta-rows.js';

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

/** Increments of one scrape for one series key, as an object (a GroupTable reads a Map of them: mapGroups()). */
export interface SeriesGroup {
  readonly key: string;
  /** undefined: the key tells them (a seriesKey() of labels for which labelsOfKey() gives them back). */
  readonly labels: SeriesLabels | undefined;
  /** By field number. */
  readonly deltas: (U64 | undefined)[];
  activity: number;
}

/**
 * When slots are handed out: `decide` at the read that closes a window of the exporter's clock (and
 * at the first read); `at` is the end of the window the read's increments belong to (rate-density.ts).
 */
export interface SlotTurn {
  readonly decide: boolean;
  readonly at: number;
}

export const OTHER_KEY = '\u0001other';
export const OTHER_LABELS: SeriesLabels = { jobid: OTHER, user: OTHER };

/**
 * Joined, not a template string: a template string is a tree of string pieces, and a waiting job's key
 * is kept while its density window is open (a flat string is one object; the tree was two more).
 */
export function seriesKey(labels: SeriesLabels): string {
  return seriesKeyOf(labels.jobid, labels.user, labels.process);
}

/** The parts seriesKeyOf() joins, one array reused: an array literal a call was ~7 MB of a changing 100,000-job scrape. */
const KEY_PARTS = ['', '', ''];

/** seriesKey() of the labels these are, without the labels object. */
export function seriesKeyOf(jobid: string, user: string, process: string | undefined): string {
  KEY_PARTS[0] = jobid;
  KEY_PARTS[1] = user;
  KEY_PARTS[2] = process ?? '';
  const key = KEY_PARTS.join('\u0000');
  // Not left holding the last job's strings.
  KEY_PARTS[0] = KEY_PARTS[1] = KEY_PARTS[2] = '';
  return key;
}

/** Whether seriesKey() of these labels tells them back (keyTellsLabels): no NUL in them, no empty process. */
export function labelsInKey(jobid: string, user: string, process: string | undefined): boolean {
  return process !== '' && !jobid.includes('\u0000') && !user.includes('\u0000') && !(process ?? '').includes('\u0000');
}

/** The labels a seriesKey() was made of, when they can be told from it (see keyTellsLabels). */
function labelsOfKey(key: string): SeriesLabels {
  const [jobid = '', user = '', process = ''] = key.split('\u0000');
  return process === '' ? { jobid, user } : { jobid, user, process };
}

/**
 * Whether labelsOfKey(key) gives `labels` back: `key` is seriesKey(labels), without a NUL in the
 * labels or an empty process (a caller may name its series otherwise: then the labels are kept).
 */
function keyTellsLabels(key: string, labels: SeriesLabels): boolean {
  const { jobid, user } = labels;
  const process = labels.process ?? '';
  if (labels.process === '' || key.length !== jobid.length + user.length + process.length + 2) return false;
  const userAt = jobid.length + 1;
  const processAt = userAt + user.length + 1;
  if (!key.startsWith(jobid) || key.charCodeAt(userAt - 1) !== 0 || !key.startsWith(user, userAt) || key.charCodeAt(processAt - 1) !== 0 || !key.endsWith(process)) return false;
  return !jobid.includes('\u0000') && !user.includes('\u0000') && !process.includes('\u0000');
}

export class SeriesBook {
  readonly series = new Map<string, SeriesState>();
  /** Which jobs have a series: folded jobs compete for free slots by their requests in the window. */
  private readonly slots: SlotTable;
  /** Jobs whose series expired, since start. */
  expiredTotal = 0;
  /** Jobs whose increments went to `_other` at the last turn (window closed) for want of a slot. */
  foldedJobs = 0;
  /**
   * Jobs without a slot (and malformed entries, OTHER_KEY) since the last turn: their row in
   * `pendingDeltas`, and by row their activity. Rows, not a group object and an array of increments
   * per job: 100,000 waiting jobs kept ~450 bytes each that way. Their labels are read back from the
   * key when a slot is theirs (a labels object and its user string were ~70 bytes a waiting job);
   * `pendingLabels` keeps those of the rare keys that do not tell them. The rows are taken in the
   * order the jobs begin to wait (from 0 after each releaseAll()), so by row is that order.
   */
  private readonly pending = new KeyRows();
  private pendingDeltas = new DeltaRows();
  private readonly pendingActivity: number[] = [];
  private readonly pendingLabels = new Map<string, SeriesLabels>();

  /** `now` of the latest settle() and of the one before. */
  private settledAt = Number.NEGATIVE_INFINITY;
  private previousSettledAt = Number.NEGATIVE_INFINITY;

  /** `graceMs`: how long a new counter is exported at 0 after its birth (besides its first scrape). */
  constructor(
    private readonly maxJobs: number,
    private readonly expiryMs: number,
    readonly graceMs = 0,
  ) {
    this.slots = new SlotTable({ max: maxJobs, folded: 'compete' });
  }

  get memberCount(): number {
    return this.slots.memberCount;
  }

  /**
   * Hands one scrape's increments to series. `groups` is keyed by seriesKey (OTHER_KEY for malformed):
   * a Map of group objects, or a table of groups by number (group-table.ts).
   * A member's increments go to its series at once. While every waiting job fits in the free slots,
   * they get them at once too; otherwise the increments of jobs without a slot wait until `turn`
   * decides (`turn.decide`: the read closes a window of the exporter's clock), so who gets a slot, and
   * what goes to `_other`, depend on the window's totals, not on how many reads split them.
   */
  settle(groups: ReadonlyMap<string, SeriesGroup> | GroupTable, now: number, epoch: number, baseline: boolean, turn: SlotTurn = { decide: true, at: now }): void {
    this.settleGroups(groups instanceof Map ? mapGroups(groups) : (groups as GroupTable), now, epoch, baseline, turn);
  }

  private settleGroups(groups: GroupTable, now: number, epoch: number, baseline: boolean, turn: SlotTurn): void {
    this.previousSettledAt = this.settledAt;
    this.settledAt = now;
    // Activity and expiry are on the window's clock (`turn.at`): every read of a window counts alike.
    // A job that begins to wait now is held as its group's number until it is known that it waits past
    // this call: a turn that decides at once (every read, when the window is as long as the scrape
    // interval) writes no row.
    const fresh: number[] = [];
    groups.forEach((g, key) => {
      if (key !== OTHER_KEY && this.slots.has(key)) {
        this.slots.touch(key, turn.at);
        this.apply(this.series.get(key) ?? this.create(key, groups.labelsOf(g) ?? labelsOfKey(key)), groups.deltasOf(g), now, epoch, baseline, turn.at);
        return;
      }
      const row = this.pending.get(key);
      if (row === undefined) {
        fresh.push(g);
        return;
      }
      this.pendingDeltas.add(row, groups.deltasOf(g));
      this.pendingActivity[row] = (this.pendingActivity[row] as number) + groups.activityOf(g);
    });
    const freshJobs = groups.has(OTHER_KEY) && !this.pending.has(OTHER_KEY) ? fresh.length - 1 : fresh.length;
    const waitingJobs = this.pending.size - (this.pending.has(OTHER_KEY) ? 1 : 0) + freshJobs;
    // Between turns, jobs that all fit get their slots at once (no choice to make, as at a turn).
    if (!turn.decide && this.slots.memberCount + waitingJobs > this.maxJobs) return this.hold(groups, fresh);
    if (turn.decide) {
      // Expire first, so the slots freed now go to waiting jobs at this same turn. A member with an
      // increment in the window was touched at `turn.at`; one whose first value is not shown yet must stay.
      const mayGo = (key: string): boolean => {
        const s = this.series.get(key);
        return s === undefined || this.valuesShown(s, epoch);
      };
      for (const key of this.slots.expire(turn.at, this.expiryMs, mayGo)) {
        this.series.delete(key);
        this.expiredTotal += 1;
      }
    }
    // Activity counts per window: a job folded now competes afresh in the next one. Candidates are
    // made only when a slot is free (100,000 waiting jobs and no free slot: no object per job).
    const chosen = new Set(this.slots.memberCount < this.maxJobs ? this.slots.fillFrom(this.candidates(groups, fresh), turn.at) : []);
    const folded: (U64 | undefined)[] = [];
    let foldedJobs = 0;
    // In the order the jobs began to wait (the order their series are created in); the increments of
    // malformed entries (OTHER_KEY) go to `_other` with the folded jobs'.
    this.pending.forEach((row, key) => {
      if (chosen.has(key)) {
        this.apply(this.create(key, this.pendingLabels.get(key) ?? labelsOfKey(key)), this.pendingDeltas.deltasOf(row), now, epoch, baseline, turn.at);
        return;
      }
      if (key !== OTHER_KEY) foldedJobs += 1;
      this.pendingDeltas.addInto(row, folded);
    });
    for (let i = 0; i < fresh.length; i += 1) {
      const g = fresh[i] as number;
      const key = groups.keyOf(g);
      if (chosen.has(key)) {
        this.apply(this.create(key, groups.labelsOf(g) ?? labelsOfKey(key)), groups.deltasOf(g), now, epoch, baseline, turn.at);
        continue;
      }
      if (key !== OTHER_KEY) foldedJobs += 1;
      mergeDeltas(folded, groups.deltasOf(g));
    }
    this.pending.clear();
    this.pendingDeltas.releaseAll();
    this.pendingLabels.clear();
    this.pendingActivity.length = 0;
    if (turn.decide) this.foldedJobs = foldedJobs;
    const other = this.series.get(OTHER_KEY);
    if (folded.some((d) => d !== undefined && d !== 0)) {
      this.apply(other ?? this.create(OTHER_KEY, OTHER_LABELS), folded, now, epoch, baseline, turn.at);
    } else if (other && this.expired(other, turn.at, epoch)) {
      this.series.delete(OTHER_KEY);
    }
  }

  /** The jobs that began to wait in this settle() and wait past it: a row each (their groups are let go). */
  private hold(groups: GroupTable, fresh: readonly number[]): void {
    if (this.pending.size === 0 && groups.takeRows !== undefined && fresh.length > 0) return this.adopt(groups, fresh, groups.takeRows());
    // The widest increments first: the rows are widened once, not once per longer group.
    if (fresh.length > 0) this.pendingDeltas.reserve(groups.width);
    for (let i = 0; i < fresh.length; i += 1) {
      const g = fresh[i] as number;
      const key = groups.keyOf(g);
      const labels = groups.labelsOf(g);
      const row = this.pendingDeltas.take();
      this.pending.set(key, row);
      if (labels && key !== OTHER_KEY && !keyTellsLabels(key, labels)) this.pendingLabels.set(key, labels);
      this.pendingDeltas.add(row, groups.deltasOf(g));
      this.pendingActivity[row] = groups.activityOf(g);
    }
  }

  /**
   * hold() when no job waits yet and the groups are rows: the jobs keep their groups' rows, numbered as
   * the groups (the rows of the groups not held are never visited; the pages go at the turn).
   */
  private adopt(groups: GroupTable, fresh: readonly number[], rows: DeltaRows): void {
    this.pendingDeltas = rows;
    for (let i = 0; i < fresh.length; i += 1) {
      const g = fresh[i] as number;
      const key = groups.keyOf(g);
      const labels = groups.labelsOf(g);
      this.pending.set(key, g);
      if (labels && key !== OTHER_KEY && !keyTellsLabels(key, labels)) this.pendingLabels.set(key, labels);
      this.pendingActivity[g] = groups.activityOf(g);
    }
  }

  /**
   * The waiting jobs (malformed entries are none) as candidates for free slots, in the order they began
   * to wait: those held in rows, then `fresh` (made only when a slot is free).
   */
  private candidates(groups: GroupTable, fresh: readonly number[]): SlotCandidate[] {
    const candidates: SlotCandidate[] = [];
    this.pending.forEach((row, key) => {
      if (key !== OTHER_KEY) candidates.push({ key, activity: this.pendingActivity[row] as number });
    });
    for (let i = 0; i < fresh.length; i += 1) {
      const g = fresh[i] as number;
      const key = groups.keyOf(g);
      if (key !== OTHER_KEY) candidates.push({ key, activity: groups.activityOf(g) });
    }
    return candidates;
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

  /** `at`: the window's time of the increments (activity and expiry); `now`: the read's (grace). */
  private apply(s: SeriesState, deltas: ArrayLike<U64 | undefined>, now: number, epoch: number, baseline: boolean, at: number): void {
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
    s.lastCredit = at;
  }
}

/** Whether a counter born at `bornMs` is still exported at 0 at `now`. */
function inGrace(bornMs: number, now: number, graceMs: number): boolean {
  return now - bornMs < graceMs;
}
