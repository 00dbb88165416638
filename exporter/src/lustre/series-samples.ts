// The exported series of a settled accumulator, handed out as ready samples: one field of one series
// at a time, with the value to expose now. Both Lustre accumulators (job_stats and plain stats) hand
// out their targets' series this way, so the metric classes and the tests only write what they are
// given and never read the series book's state (values, birth scrapes) themselves.
import type { ExportField, FieldKind } from './export-fields.js';
import type { SeriesBook, SeriesLabels, SeriesState } from './series-book.js';
import { u64ToNumber, type U64 } from '../util/u64.js';

/**
 * One sample of `series` (its identity as the accumulator names it). `value` is what to expose: 0 in
 * the scrape that created the field and during the book's grace period after (every scraper then sees
 * the series start at 0 and `increase()` includes the first increment), the field's value otherwise. `total` is the field's exact value in
 * the accumulator, the same as `value` except while it is new.
 */
export type SampleVisitor<S> = (series: S, field: ExportField, value: number, total: U64) => void;

/**
 * The samples of one target as they were when the view was taken. It holds the live series objects,
 * not copies: their values change only in the accumulator's finish(), and every finish() is followed
 * in the same tick by a refill, so what is written from it is always what that refill saw.
 */
export class TargetSamples<S> {
  constructor(
    private readonly book: SeriesBook,
    private readonly series: readonly SeriesState[],
    private readonly fields: readonly ExportField[],
    private readonly epoch: number,
    private readonly identify: (labels: SeriesLabels) => S,
  ) {}

  /** Number of series (exported or not yet: a series always has at least one field). */
  get seriesCount(): number {
    return this.series.length;
  }

  /**
   * Calls `visit` for every sample, series by series, in field order; only fields of `kind` when
   * given. Plain loops and positional arguments: with every job of a big OST exported this runs
   * 280,000 times per scrape, and result objects per sample were most of the garbage.
   */
  forEach(visit: SampleVisitor<S>, kind?: FieldKind): void {
    const fields = kind === undefined ? this.fields : this.fields.filter((f) => f.kind === kind);
    if (fields.length === 0) return;
    for (const s of this.series) {
      const series = this.identify(s.labels);
      for (const field of fields) {
        const value = this.book.exportedValue(s, field.id, this.epoch);
        if (value === undefined) continue;
        visit(series, field, u64ToNumber(value), s.values[field.id] ?? value);
      }
    }
  }
}
