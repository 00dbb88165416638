// The state of the lustre_jobstats collector across scrapes, without any I/O or prom-client:
// per target, the entries' last values (EntryTracker) and the exported series (SeriesBook).
//
// One scrape: begin() → ingest() or read() each file, or ingest() an lctl dump → uids() to resolve →
// finish() → targetViews(), whose samples lustre/refill.ts writes into the metrics.
import { JobStatsStream, scanJobStats, type JobStatsVisitor } from '../parsers/lustre-jobstats.js';
import { CreditBook, type JobClass } from './credits.js';
import { EntryTracker, type QualityCounts, type ReadTally, type UidClass } from './entry-tracker.js';
import { FileDigests } from './file-digests.js';
import { FieldTable } from './export-fields.js';
import type { JobIdentity, JobIdFormats } from './jobid-format.js';
import { labelsInKey, OTHER_KEY, SeriesBook, seriesKeyOf, type SeriesLabels } from './series-book.js';
import { TargetSamples } from './series-samples.js';
import { NONE, UNKNOWN } from '../labels/reserved.js';
import { DEFAULT_DENSITY_WINDOW_MS, DensityWindow, fieldClassesOf, type RateDensity } from './rate-density.js';
import { EntryBudget } from './entry-budget.js';
import { noReadErrors, type CutReason, type ParseErrorReason, type ReadErrorReason, type ReasonCounts } from './error-reasons.js';

export interface AccumulatorOptions {
  readonly maxJobs: number;
  readonly expiryMs: number;
  readonly formats: JobIdFormats;
  /** Entries remembered per target; new entries beyond it are dropped (counted). */
  readonly maxEntries?: number;
  /** Targets kept; further targets are not read at all (counted per scrape). */
  readonly maxTargets?: number;
  /** The rate density's window on the exporter's clock (rate-density.ts DensityWindow). */
  readonly densityWindowMs?: number;
  /** How long a new counter stays at 0 after its birth (series-book.ts), so every scraper sees it start. */
  readonly newSeriesGraceMs?: number;
  /** Entries remembered by all targets together (entry-budget.ts); new entries beyond are dropped (counted). */
  readonly maxTotalEntries?: number;
  /** Uids up to it are system users in the entry counts (entry-tracker.ts UidClass); -1: none. */
  readonly systemUidMax?: number;
}

/** One streamed read of a target's job_stats file. */
export interface TargetReader {
  /** The next bytes of the file (the buffer may be reused once this returns). */
  push(chunk: Buffer): void;
  /** The file is done; `cut` says why when it was not read to its end. */
  end(cut?: CutReason): void;
  /** The read failed (after some bytes, maybe): what was read counts, nothing unseen is forgotten. */
  fail(reason: ReadErrorReason): void;
  /**
   * Present when the last read of the target can be repeated: pass the file through it first. If it
   * holds the bytes of the last read, the read is done (nothing to parse, nothing changed); if not,
   * read the file again, from its start, into push().
   */
  readonly probe?: TargetProbe | undefined;
}

/** A first pass over a file that may not have changed since its last read (file-digests.ts). */
export interface TargetProbe {
  /** The next bytes; false as soon as they differ from the last read's (then the reader needs every byte). */
  push(chunk: Buffer): boolean;
  /** Chunks pushed so far (a first chunk that differs can go on to the reader: no second read). */
  readonly chunks: number;
  /** The file ended: true if it is the last read byte for byte; the read is then done. */
  end(): boolean;
}

/** A complete read of a target's file, for telling an unchanged file at the next read. */
interface LastRead {
  readonly digests: FileDigests;
  readonly tally: ReadTally;
  readonly malformedLines: number;
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
  readonly byUid: Record<UidClass, QualityCounts>;
  /** Lines and entries skipped since start, by reason. */
  readonly parseErrors: ReasonCounts<ParseErrorReason>;
  /** Reads of the file that failed since start, by reason. */
  readonly readErrors: ReasonCounts<ReadErrorReason>;
  readonly foldedJobs: number;
  readonly exportedJobs: number;
  readonly expiredJobsTotal: number;
  /** Reads stopped before the end of the file, by reason. */
  readonly truncatedReads: ReasonCounts<CutReason>;
  /** New entries not remembered for want of room (max-entries). */
  readonly droppedEntriesTotal: number;
  /** The samples of the target's series, each named by its labels (jobid, user, process). */
  readonly samples: TargetSamples<SeriesLabels>;
  /** Jobs and users per rate decade over the last window closed (undefined: none yet, or not read now). */
  readonly density: RateDensity | undefined;
}

class TargetState {
  readonly tracker: EntryTracker;
  readonly book: SeriesBook;
  readonly credits = new CreditBook();
  readEpoch = -1;
  failedEpoch = -1;
  /** Scrape in which the read stopped before the end of the file: entries not seen are kept. */
  cutEpoch = -1;
  readonly truncatedReads: ReasonCounts<CutReason> = { max_file_bytes: 0, timeout: 0 };
  /** Lines of no known shape (the tracker counts the other parse errors). */
  malformedLinesTotal = 0;
  readonly readErrors = noReadErrors();
  readonly window: DensityWindow;
  /** The last read, while its entries are as it left them (no read since, not cleared). */
  lastRead: LastRead | undefined;

  constructor(
    readonly ref: TargetRef,
    fields: FieldTable,
    options: AccumulatorOptions,
    budget: EntryBudget,
  ) {
    this.tracker = new EntryTracker(fields, options.formats, options.maxEntries, budget, options.systemUidMax);
    this.book = new SeriesBook(options.maxJobs, options.expiryMs, options.newSeriesGraceMs);
    this.window = new DensityWindow(options.densityWindowMs ?? DEFAULT_DENSITY_WINDOW_MS);
  }
}

function labelsOf(identity: JobIdentity, userLabel: UserLabel): SeriesLabels {
  const user = identity.uid === undefined ? UNKNOWN : userLabel(identity.uid);
  if (identity.jobid !== undefined) return { jobid: identity.jobid, user };
  return identity.process === undefined ? { jobid: NONE, user } : { jobid: NONE, user, process: identity.process };
}

/** A job series is named by its labels as they are. */
const labelsAsTheyAre = (labels: SeriesLabels): SeriesLabels => labels;

export class JobStatsAccumulator {
  private readonly fields = new FieldTable();
  private classesOfFields: number[][] = [];
  private readonly targets = new Map<string, TargetState>();
  private epoch = 0;
  private collected = false;
  /** Walks over the entries' classes so far (densityOf marks the classes it has counted). */
  private densityWalks = 0;
  /** Lines of an lctl dump that came before any `param=` header: no target to charge them to. */
  unattributedLines = 0;
  /** Targets present but not read this scrape because maxTargets were already kept. */
  droppedTargets = 0;
  /** Directories that exist but could not be listed, since start (counted by the update). */
  unreadableDirsTotal = 0;

  private readonly budget: EntryBudget;

  constructor(private readonly options: AccumulatorOptions) {
    this.budget = new EntryBudget(options.maxTotalEntries ?? Number.POSITIVE_INFINITY, options.maxTargets ?? Number.POSITIVE_INFINITY);
  }

  begin(): void {
    this.epoch += 1;
    this.droppedTargets = 0;
    for (const t of this.targets.values()) t.credits.clear();
  }

  /**
   * Whether a target may be read this scrape: one already kept always is (sticky, like job slots);
   * a new one while fewer than maxTargets are kept. A refused one is counted in droppedTargets.
   */
  admit(ref: TargetRef): boolean {
    if (this.targets.has(`${ref.kind}/${ref.name}`)) return true;
    if (this.targets.size < (this.options.maxTargets ?? Number.POSITIVE_INFINITY)) {
      // Created now (not yet read), so targets keep the order of discovery whatever order reads end in.
      this.target(ref, false);
      return true;
    }
    this.droppedTargets += 1;
    return false;
  }

  private target(ref: TargetRef, reading = true): TargetState {
    const key = `${ref.kind}/${ref.name}`;
    let t = this.targets.get(key);
    if (!t) {
      t = new TargetState(ref, this.fields, this.options, this.budget);
      this.targets.set(key, t);
    }
    if (reading && t.readEpoch !== this.epoch) {
      t.readEpoch = this.epoch;
      t.lastRead = undefined;
      t.tracker.beginRead();
    }
    return t;
  }

  /**
   * Takes one job_stats text: a raw file of `target`, or `lctl get_param` output (then the
   * `<kind>.<target>.job_stats=` headers say where each entry belongs).
   */
  ingest(input: Uint8Array | string, target?: TargetRef): void {
    scanJobStats(input, this.visitor(target));
  }

  /**
   * Starts a streamed read of one target's file. The target counts as read once end() is called (an
   * empty file is a target without entries); a reader dropped unused (the file vanished) changes nothing.
   */
  read(target: TargetRef): TargetReader {
    const last = this.targets.get(`${target.kind}/${target.name}`)?.lastRead;
    const digests = new FileDigests();
    let stream: JobStatsStream | undefined;
    let malformedBefore = 0;
    const open = (): JobStatsStream => {
      if (!stream) {
        stream = new JobStatsStream(this.visitor(target));
        malformedBefore = this.target(target).malformedLinesTotal;
      }
      return stream;
    };
    const cut = (): void => {
      const t = this.target(target);
      t.cutEpoch = this.epoch;
    };
    return {
      push: (chunk) => {
        digests.push(chunk);
        open().push(chunk);
      },
      end: (reason) => {
        open().end(reason !== undefined);
        const t = this.target(target);
        if (reason !== undefined) {
          cut();
          t.truncatedReads[reason] += 1;
          return;
        }
        const tally = t.tracker.tally();
        if (tally) t.lastRead = { digests, tally, malformedLines: t.malformedLinesTotal - malformedBefore };
      },
      fail: (reason) => {
        if (stream) {
          stream.end(true);
          cut();
        }
        this.markFailed(target, reason);
      },
      probe: last && this.probe(target, last),
    };
  }

  private probe(target: TargetRef, last: LastRead): TargetProbe {
    const seen = new FileDigests();
    return {
      get chunks() {
        return seen.digests.length;
      },
      push: (chunk) => {
        seen.push(chunk);
        return seen.agreesWith(last.digests, seen.digests.length - 1);
      },
      end: () => {
        if (!seen.sameAs(last.digests)) return false;
        const t = this.target(target);
        t.tracker.repeat(last.tally, this.epoch);
        t.malformedLinesTotal += last.malformedLines;
        t.lastRead = last;
        return true;
      },
    };
  }

  private visitor(target: TargetRef | undefined): JobStatsVisitor {
    let current = target ? this.target(target) : undefined;
    /** In an lctl dump, inside the section of a target beyond maxTargets: skipped. */
    let dropped = false;
    const epoch = this.epoch;
    return {
      target: (kind, name) => {
        dropped = !this.admit({ kind, name });
        current = dropped ? undefined : this.target({ kind, name });
      },
      entry: (view) => {
        if (current) current.tracker.ingest(view, epoch, current.credits);
        else if (!dropped) this.unattributedLines += 1;
      },
      malformed: () => {
        if (current) current.malformedLinesTotal += 1;
        else if (!dropped) this.unattributedLines += 1;
      },
    };
  }

  /** The target exists but could not be read this scrape: keep its entries and series as they are. */
  markFailed(ref: TargetRef, reason: ReadErrorReason = 'unreadable'): void {
    const t = this.target(ref, false);
    t.failedEpoch = this.epoch;
    t.readErrors[reason] += 1;
  }

  /** uids that appear in this scrape's increments (resolve their names before finish()). */
  uids(): Set<number> {
    const uids = new Set<number>();
    for (const t of this.targets.values()) for (const c of t.credits.classes) if (c.uid !== undefined) uids.add(c.uid);
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
      // A read cut short (byte bound, error midway) did not see the rest of the file: keep it.
      const whole = read && t.cutEpoch !== this.epoch && t.failedEpoch !== this.epoch;
      if (read) t.tracker.endRead(this.epoch, whole);
      else if (!kept) t.tracker.clear();
      // Only a whole read leaves the entries as its bytes say (and a cleared target has none).
      if (!whole && (read || !kept)) t.lastRead = undefined;
      // Slots are handed out when the read closes a density window; a target not read decides at once.
      const turn = read && !baseline ? t.window.turnAt(now) : { decide: true, at: now };
      if (read) this.addToDensity(t, now, baseline);
      this.name(t, userLabel);
      t.book.settle(t.credits, now, this.epoch, baseline, turn);
      t.credits.clear();
      if (!kept && t.book.series.size === 0) this.targets.delete(key);
    }
    this.collected = true;
  }

  /**
   * Adds every job of the read (one per identity, its client hosts merged), folded or not, to the
   * target's density window; malformed ids are no job. A first read opens the window uncounted.
   */
  private addToDensity(t: TargetState, now: number, baseline: boolean): void {
    if (baseline || !t.window.isOpen) return t.window.open(now);
    // Each class once, in the order of its first entry: marked with a number no earlier walk used.
    const mark = (this.densityWalks += 1);
    const fieldClasses = this.fieldClasses();
    t.tracker.forEachClass((cls) => {
      if (cls.quality === 'malformed' || cls.mark === mark) return;
      cls.mark = mark;
      const credit = t.credits.creditOf(cls);
      t.window.add(cls, credit < 0 ? undefined : t.credits.deltasOf(credit), fieldClasses);
    });
    t.window.settle(now);
  }

  /** fieldClassesOf the field table, made again only when a field was added (fields are only appended). */
  private fieldClasses(): number[][] {
    if (this.classesOfFields.length !== this.fields.fields.length) this.classesOfFields = fieldClassesOf(this.fields.fields);
    return this.classesOfFields;
  }

  /**
   * The scrape's credits named by series and merged (CreditBook.name): the first credit of a series key
   * is its group, the others are added to it. The series book keeps none of them (a waiting job's
   * increments are added to its row there).
   */
  private name(t: TargetState, userLabel: UserLabel): void {
    const { classes } = t.credits;
    for (let credit = 0; credit < classes.length; credit += 1) {
      const cls = classes[credit] as JobClass;
      if (cls.quality === 'malformed') {
        t.credits.name(credit, OTHER_KEY, undefined);
        continue;
      }
      // The key from the parts; a labels object only when the key cannot tell them back (rare): one
      // object and user string less per job and scrape while 100,000 jobs are handed over.
      const user = cls.uid === undefined ? UNKNOWN : userLabel(cls.uid);
      const jobid = cls.jobid ?? NONE;
      const process = cls.jobid === undefined ? cls.process : undefined;
      t.credits.name(credit, seriesKeyOf(jobid, user, process), labelsInKey(jobid, user, process) ? undefined : labelsOf(cls, userLabel));
    }
  }

  *targetViews(): Iterable<TargetView> {
    const fields = [...this.fields.fields];
    for (const t of this.targets.values()) {
      yield {
        name: t.ref.name,
        kind: t.ref.kind,
        read: t.readEpoch === this.epoch,
        quality: t.tracker.quality,
        byUid: t.tracker.byUid,
        parseErrors: { malformed_line: t.malformedLinesTotal, value_out_of_range: t.tracker.outOfRangeEntries, too_many_fields: t.tracker.droppedCounters },
        readErrors: { ...t.readErrors },
        foldedJobs: t.book.foldedJobs,
        exportedJobs: t.book.memberCount,
        expiredJobsTotal: t.book.expiredTotal,
        truncatedReads: { ...t.truncatedReads },
        droppedEntriesTotal: t.tracker.droppedEntries,
        samples: new TargetSamples(t.book, [...t.book.series.values()], fields, this.epoch, labelsAsTheyAre),
        density: t.readEpoch === this.epoch ? t.window.density : undefined,
      };
    }
  }

  /** Entries rejected for a value beyond u64 since start, per target (`kind/name`): for the log. */
  outOfRangeEntries(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const [key, t] of this.targets) if (t.tracker.outOfRangeEntries > 0) counts.set(key, t.tracker.outOfRangeEntries);
    return counts;
  }

  /** New entries refused by max-total-entries since start, all targets together: for the log. */
  budgetDroppedEntries(): number {
    let total = 0;
    for (const t of this.targets.values()) total += t.tracker.budgetDroppedEntries;
    return total;
  }

  /** Number of targets known (read now or still holding series). */
  get targetCount(): number {
    return this.targets.size;
  }
}
