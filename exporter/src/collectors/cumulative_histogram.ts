// A Prometheus histogram filled from counts someone else keeps (Lustre's brw_stats buckets), which an
// observing histogram (one value at a time) cannot express. The family hands out each series when the
// scrape renders it, from (value, count) rows its fill gives: the buckets are fixed here, so a series
// always has the same `le` set whatever rows the source printed: `le` counts the rows whose value is at
// most it, `+Inf` and `_count` all of them. There is no `_sum`: the sources give counts per bucket, not
// the values' total (histogram_quantile() and bucket ratios need only the buckets).
import type { Labels, MetricFamily } from '../scrape/metric-family.js';

/** One row of a source's histogram: the value its count falls at, and the count. */
export interface CountRow {
  readonly value: number;
  readonly count: number;
}

/** Hands one series to the family: its labels and its rows. */
export type AddHistogram = (labels: Labels, rows: readonly CountRow[]) => void;

/**
 * A histogram family whose series `fill` hands out at each scrape. `bounds`: the upper bounds,
 * increasing, in the rows' unit; `le` shows them times `scale` (ms → s).
 */
export function cumulativeHistogram(name: string, help: string, bounds: readonly number[], fill: (add: AddHistogram) => void, scale = 1): MetricFamily {
  return {
    name,
    help,
    type: 'histogram',
    collect(sink): void {
      fill((labels, rows) => {
        const buckets = bounds.map(() => 0);
        let count = 0;
        for (const row of rows) {
          count += row.count;
          bounds.forEach((bound, i) => {
            if (row.value <= bound) buckets[i] = (buckets[i] ?? 0) + row.count;
          });
        }
        bounds.forEach((bound, i) => sink.sample({ ...labels, le: bound * scale }, buckets[i] ?? 0, '_bucket'));
        sink.sample({ ...labels, le: '+Inf' }, count, '_bucket');
        sink.sample(labels, count, '_count');
      });
    },
  };
}
