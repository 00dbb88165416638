// The state of the lustre_jobstats collector across scrapes, without any I/O or prom-client:
// per target, the entries' last values (EntryTracker) and the exported series (SeriesBook).
//
// One scrape: begin() → ingest() each file or lctl dump → uids() to resolve → finish() → targets().
import { scanJobStats, type JobStatsVisitor } from '../parsers/lustre-jobstats.js';
import { CreditBook, type Credit } from './credits.js';
import { EntryTracker, type QualityCounts } from './entry-tracker.js';
import { FieldTable } from './export-fields.js';
import type { JobIdFormats } from './jobid-format.js';
import { mergeDeltas, OTHER_KEY, OTHER_LABELS, SeriesBook, seriesKey, type SeriesGroup, type SeriesLabels, type SeriesState } from './series-book.js';
import { NONE, UNKNOWN } from '../labels/reserved.js';

export interface AccumulatorOptions {
  readonly maxJobs: number;
  readonly expiryMs: number;
  readonly formats: JobIdFormats;
}

/** A job_stats source: `mdt` or `obdfilter`, and the target name (`fs-OST0000`). */
export interface TargetRef {
  readonly kind: string;
  readonly name: string;
}

/** Turns a uid into the `user` label (`alice`, `uid:1234`, `_system`). */
export type UserLabel = (uid: number) => string;

export interface TargetView {
  readonly name: string;
  readonly kind: string;
  /** False when the target was not read this scrape (gone or failed): its series live until expiry. */
  readonly read: boolean;
  readonly quality: QualityCounts;
  readonly parseErrorsTotal: number;
  readonly readErrorsTotal: number;
  readonly foldedJobs: number;
  readonly exportedJobs: number;
  readonly expiredJobsTotal: number;
  readonly series: Iterable<SeriesState>;
}

class TargetState {
  readonly tracker: EntryTracker;
  readonly book: SeriesBook;
  readonly credits = new CreditBook();
  readEpoch = -1;
  failedEpoch = -1;
  parseErrorsTotal = 0;
  readErrorsTotal = 0;

  constructor(
    readonly ref: TargetRef,
    fields: FieldTable,
    options: AccumulatorOptions,
  ) {
    this.tracker = new EntryTracker(fields, options.formats);
    this.book = new SeriesBook(options.maxJobs, options.expiryMs);
  }
}

function labelsOf(credit: Credit, userLabel: UserLabel): SeriesLabels {
  const { identity } = credit;
  const user = identity.uid === undefined ? UNKNOWN : userLabel(identity.uid);
  if (identity.jobid !== undefined) return { jobid: identity.jobid, user };
  return identity.process === undefined ? { jobid: NONE, user } : { jobid: NONE, user, process: identity.process };
}

export class JobStatsAccumulator {
  readonly fields = new FieldTable();
  private readonly targets = new Map<string, TargetState>();
  private epoch = 0;
  private collected = false;
  /** Lines of an lctl dump that came before any `param=` header: no target to charge them to. */
  unattributedLines = 0;

  constructor(private readonly options: AccumulatorOptions) {}

  /** The current scrape's number: series fields born in it are exported as 0. */
  get scrapeEpoch(): number {
    return this.epoch;
  }

  begin(): void {
    this.epoch += 1;
    for (const t of this.targets.values()) t.credits.clear();
  }

  private target(ref: TargetRef, reading = true): TargetState {
    const key = `${ref.kind}/${ref.name}`;
    let t = this.targets.get(key);
    if (!t) {
      t = new TargetState(ref, this.fields, this.options);
      this.targets.set(key, t);
    }
    if (reading && t.readEpoch !== this.epoch) {
      t.readEpoch = this.epoch;
      t.tracker.beginRead();
    }
    return t;
  }

  /**
   * Takes one job_stats text: a raw file of `target`, or `lctl get_param` output (then the
   * `<kind>.<target>.job_stats=` headers say where each entry belongs).
   */
  ingest(input: Uint8Array | string, target?: TargetRef): void {
    let current = target ? this.target(target) : undefined;
    const epoch = this.epoch;
    const visitor: JobStatsVisitor = {
      target: (kind, name) => {
        current = this.target({ kind, name });
      },
      entry: (view) => {
        if (current) current.tracker.ingest(view, epoch, current.credits);
        else this.unattributedLines += 1;
      },
      malformed: () => {
        if (current) current.parseErrorsTotal += 1;
        else this.unattributedLines += 1;
      },
    };
    scanJobStats(input, visitor);
  }

  /** The target exists but could not be read this scrape: keep its entries and series as they are. */
  markFailed(ref: TargetRef): void {
    const t = this.target(ref, false);
    t.failedEpoch = this.epoch;
    t.readErrorsTotal += 1;
  }

  /** uids that appear in this scrape's increments (resolve their names before finish()). */
  uids(): Set<number> {
    const uids = new Set<number>();
    for (const t of this.targets.values()) for (const c of t.credits.byClass.values()) if (c.identity.uid !== undefined) uids.add(c.identity.uid);
    return uids;
  }

  /**
   * Settles the scrape. `complete` says every present target was read; when the read phase was cut
   * short (lctl timed out, the scrape was aborted) the targets not read keep their entries, else they
   * are gone from the host (unmounted, failed over) and start from zero if they return.
   */
  finish(now: number, userLabel: UserLabel, complete = true): void {
    const baseline = !this.collected;
    for (const [key, t] of this.targets) {
      const read = t.readEpoch === this.epoch;
      const kept = read || !complete || t.failedEpoch === this.epoch;
      if (read) t.tracker.endRead(this.epoch);
      else if (!kept) t.tracker.clear();
      t.book.settle(this.group(t, userLabel), now, this.epoch, baseline);
      if (!kept && t.book.series.size === 0) this.targets.delete(key);
    }
    this.collected = true;
  }

  private group(t: TargetState, userLabel: UserLabel): Map<string, SeriesGroup> {
    const groups = new Map<string, SeriesGroup>();
    for (const credit of t.credits.byClass.values()) {
      const malformed = credit.identity.quality === 'malformed';
      const labels = malformed ? OTHER_LABELS : labelsOf(credit, userLabel);
      const key = malformed ? OTHER_KEY : seriesKey(labels);
      const g = groups.get(key);
      if (g) {
        mergeDeltas(g.deltas, credit.deltas);
        g.activity += credit.activity;
      } else {
        groups.set(key, { key, labels, deltas: credit.deltas, activity: credit.activity });
      }
    }
    t.credits.clear();
    return groups;
  }

  *targetViews(): Iterable<TargetView> {
    for (const t of this.targets.values()) {
      yield {
        name: t.ref.name,
        kind: t.ref.kind,
        read: t.readEpoch === this.epoch,
        quality: t.tracker.quality,
        parseErrorsTotal: t.parseErrorsTotal + t.tracker.droppedCounters,
        readErrorsTotal: t.readErrorsTotal,
        foldedJobs: t.book.foldedJobs,
        exportedJobs: t.book.memberCount,
        expiredJobsTotal: t.book.expiredTotal,
        series: t.book.series.values(),
      };
    }
  }

  /** Number of targets known (read now or still holding series). */
  get targetCount(): number {
    return this.targets.size;
  }
}
