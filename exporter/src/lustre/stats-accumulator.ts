// Exporter-owned counters over plain stats files, for the lustre_exports collector (one series per
// target and client NID) and the lustre_stats collector (one series per target, client ''). No I/O,
// no prom-client: scenario tests drive it directly.
//
// Same semantics as job_stats (docs/architecture.md "Lustre: counters the exporter owns", series-book.ts), reusing its SeriesBook:
// - each file's last values are kept; the increment of a field is value − previous, or the whole new
//   value when any field decreased or `start_time` changed (Lustre cleared the stats: a client
//   reconnected, `lctl set_param …stats=clear`, a failover);
// - a file seen for the first time after the first collection is new (a client that connected since):
//   its whole value is an increment, and its series is exported at 0 in the scrape that creates it;
// - at most `maxClients` clients per target have their own series (sticky; free slots go to the most
//   active); the others' increments go to client="_other", so sums over clients stay true;
// - a series lives while its file is present and for `expiryMs` after it went away;
// - with `windowMs`, slots beyond the cap are handed out, and series expire, when a window of the
//   exporter's clock closes (window-clock.ts, as for lustre_jobstats' max-jobs), so the series do not
//   depend on how many scrapers split a window;
// - lustre_client (client-book.ts) also holds a target's increments until the read that closes the
//   window, then credits them to the series it names (the node's job).
import type { StatsSection } from '../parsers/lustre-stats.js';
import { FieldTable } from './export-fields.js';
import { mergeDeltas, SeriesBook, seriesKey, type SeriesGroup, type SeriesLabels, type SlotTurn } from './series-book.js';
import { TargetSamples } from './series-samples.js';
import { statsFields } from './stats-fields.js';
import { u64Add, u64Less, u64Sub, type U64 } from '../util/u64.js';
import { WindowClock } from './window-clock.js';
import { noReadErrors, type ReadErrorReason, type ReasonCounts } from './error-reasons.js';

// A stats series is named by one string: the client's NID (lustre_exports), '' (a target's own totals,
// lustre_stats) or the node's job (lustre_client, HeldTurn), `_other` for folded load. The series book keys its
// series by job labels, so the name rides in their `jobid` slot: these two functions are the only
// places that know it.
function bookLabels(seriesName: string): SeriesLabels {
  return { jobid: seriesName, user: '' };
}

function seriesNameOf(labels: SeriesLabels): string {
  return labels.jobid;
}

export interface StatsAccumulatorOptions {
  readonly maxClients: number;
  readonly expiryMs: number;
  /** How long a new series' counters stay at 0 after its birth (series-book.ts); 0 by default. */
  readonly newSeriesGraceMs?: number;
  /** The window of the exporter's clock at whose close slots are handed out (none: at every read). */
  readonly windowMs?: number;
}

/** Increments held until the window closes (finish() with a series name). */
interface Held {
  readonly deltas: (U64 | undefined)[];
  activity: number;
}

interface FileState {
  values: Map<number, U64>;
  startTime: string | undefined;
  seen: number;
}

class TargetState {
  readonly files = new Map<string, FileState>();
  readonly book: SeriesBook;
  groups = new Map<string, SeriesGroup>();
  /** Clients whose file was read this scrape. */
  present = new Set<string>();
  /** Increments of the open window, when settled with a HeldTurn. */
  held: Held | undefined;
  readEpoch = -1;
  parseErrorsTotal = 0;
  readonly readErrors = noReadErrors();

  constructor(options: StatsAccumulatorOptions) {
    this.book = new SeriesBook(options.maxClients, options.expiryMs, options.newSeriesGraceMs);
  }
}

export interface StatsTargetView {
  readonly name: string;
  readonly read: boolean;
  /** Clients (files) in the last read of the target. */
  readonly clients: number;
  readonly foldedClients: number;
  readonly parseErrorsTotal: number;
  /** Files of the target that exist but could not be read, since start, by reason. */
  readonly readErrors: ReasonCounts<ReadErrorReason>;
  /** The samples of the target's series, each named by its series name (see bookLabels). */
  readonly samples: TargetSamples<string>;
}

export class StatsAccumulator {
  private readonly fields = new FieldTable();
  private readonly targets = new Map<string, TargetState>();
  private epoch = 0;
  private collected = false;
  private readonly clock: WindowClock | undefined;

  constructor(private readonly options: StatsAccumulatorOptions) {
    this.clock = options.windowMs === undefined ? undefined : new WindowClock(options.windowMs);
  }

  /** Where a read at `now` falls on the window clock (with no window, every read decides). */
  turnAt(now: number): SlotTurn {
    return this.clock?.turnAt(now) ?? { decide: true, at: now };
  }

  get targetCount(): number {
    return this.targets.size;
  }

  /** Targets present but not read this scrape (beyond max-targets), set by the update. */
  droppedTargets = 0;

  /** Directories that exist but could not be listed, since start (counted by the update). */
  unreadableDirsTotal = 0;

  /** Whether the target is known (read before, or still holding series). */
  has(target: string): boolean {
    return this.targets.has(target);
  }

  begin(): void {
    this.epoch += 1;
    for (const t of this.targets.values()) {
      t.groups = new Map();
      t.present = new Set();
    }
  }

  private target(name: string): TargetState {
    let t = this.targets.get(name);
    if (!t) {
      t = new TargetState(this.options);
      this.targets.set(name, t);
    }
    t.readEpoch = this.epoch;
    return t;
  }

  /** One stats file of `target` (client '' for the target's own totals, and for a mount's llite stats). */
  ingest(target: string, client: string, section: StatsSection): void {
    const t = this.target(target);
    t.parseErrorsTotal += section.badLines;
    const { values, dropped } = statsFields(section, this.fields);
    t.parseErrorsTotal += dropped;
    t.present.add(client);
    let file = t.files.get(client);
    const isNew = file === undefined;
    if (!file) {
      file = { values: new Map(), startTime: section.startTime, seen: this.epoch };
      t.files.set(client, file);
    } else if (file.seen === this.epoch) {
      t.parseErrorsTotal += 1; // the same file twice in one read (a broken lctl dump): keep the first
      return;
    }
    let reset = !isNew && section.startTime !== undefined && file.startTime !== undefined && section.startTime !== file.startTime;
    for (const { id, value } of values) {
      const before = file.values.get(id);
      if (before !== undefined && u64Less(value, before)) reset = true;
    }
    const deltas: (U64 | undefined)[] = [];
    let activity = 0;
    for (const { id, value } of values) {
      const before = file.values.get(id);
      const delta = reset || before === undefined ? value : u64Sub(value, before);
      if (delta === 0) continue;
      const prior = deltas[id];
      deltas[id] = prior === undefined ? delta : u64Add(prior, delta);
      if (this.fields.fields[id]?.kind === 'operations') activity += Number(delta);
    }
    if (reset) file.values = new Map();
    for (const { id, value } of values) file.values.set(id, value);
    file.startTime = section.startTime;
    file.seen = this.epoch;
    const labels = bookLabels(client);
    const key = seriesKey(labels);
    // A present client with no increment still gets a group when it has a series: presence keeps it alive.
    if (activity === 0 && !deltas.some((d) => d !== undefined && d !== 0) && !t.book.series.has(key)) return;
    const g = t.groups.get(key);
    if (g) {
      mergeDeltas(g.deltas, deltas);
      g.activity += activity;
    } else t.groups.set(key, { key, labels, deltas, activity });
  }

  /**
   * A file that exists but could not be read: keep its last values (no increment is lost later).
   * Without `client`, the target's directory could not be listed: every file of the target is kept (the
   * directory is counted by the update). A file's failure is counted under `reason`.
   */
  markFailed(target: string, client?: string, reason: ReadErrorReason = 'unreadable'): void {
    const t = this.target(target);
    if (client === undefined) {
      for (const [known, file] of t.files) {
        file.seen = this.epoch;
        t.present.add(known);
      }
      return;
    }
    t.readErrors[reason] += 1;
    const file = t.files.get(client);
    if (file) file.seen = this.epoch;
    t.present.add(client);
  }

  /**
   * Settles the scrape. `complete` false (lctl cut short): files not seen are kept, not forgotten.
   * With `heldFor` (lustre_client), the increments wait for the read that closes the window and then go
   * to the series `heldFor` names (given at every read; used at the closing one).
   */
  finish(now: number, complete = true, heldFor?: string): void {
    const baseline = !this.collected;
    const turn = this.turnAt(now);
    for (const [name, t] of this.targets) {
      if (complete) for (const [client, file] of t.files) if (file.seen !== this.epoch) t.files.delete(client);
      t.book.settle(heldFor === undefined ? t.groups : this.heldGroups(t, turn.decide, heldFor), now, this.epoch, baseline, turn);
      t.groups = new Map();
      if (t.readEpoch !== this.epoch && t.files.size === 0 && t.book.series.size === 0 && t.held === undefined) this.targets.delete(name);
    }
    if (turn.decide) this.clock?.open(now);
    this.collected = true;
  }

  /** Adds the read's increments of `t` to its held ones; at the closing read (`decide`), hands them all to `seriesName`. */
  private heldGroups(t: TargetState, decide: boolean, seriesName: string): Map<string, SeriesGroup> {
    for (const g of t.groups.values()) {
      if (t.held) {
        mergeDeltas(t.held.deltas, g.deltas);
        t.held.activity += g.activity;
      } else t.held = { deltas: [...g.deltas], activity: g.activity };
    }
    if (!decide) return new Map();
    const held = t.held;
    t.held = undefined;
    const labels = bookLabels(seriesName);
    const key = seriesKey(labels);
    // A mount read at the closing read keeps its job's series alive, as a present file keeps a client's.
    if (held === undefined && !(t.readEpoch === this.epoch && t.present.size > 0 && t.book.series.has(key))) return new Map();
    return new Map([[key, { key, labels, deltas: held?.deltas ?? [], activity: held?.activity ?? 0 }]]);
  }

  *targetViews(): Iterable<StatsTargetView> {
    const fields = [...this.fields.fields];
    for (const [name, t] of this.targets) {
      const samples = new TargetSamples(t.book, [...t.book.series.values()], fields, this.epoch, seriesNameOf);
      yield { name, read: t.readEpoch === this.epoch, clients: t.present.size, foldedClients: t.book.foldedJobs, parseErrorsTotal: t.parseErrorsTotal, readErrors: { ...t.readErrors }, samples };
    }
  }
}
