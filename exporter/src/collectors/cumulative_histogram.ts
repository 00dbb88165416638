// A Prometheus histogram filled from counts someone else keeps (Lustre's brw_stats buckets), for which
// prom-client has no metric: its Histogram only observes values one at a time. Each series is set
// whole at a refill from (value, count) rows; its buckets are fixed here, so a series always has the
// same `le` set whatever rows the source printed: `le` counts the rows whose value is at most it,
// `+Inf` and `_count` all of them. There is no `_sum`: the sources give counts per bucket, not the
// values' total (histogram_quantile() and bucket ratios need only the buckets).
import type { MetricFamily, SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';

interface Series {
  readonly labels: Record<string, string>;
  readonly buckets: number[];
  readonly count: number;
}

export class CumulativeHistogram implements MetricFamily {
  readonly type = 'histogram';
  private series: Series[] = [];

  /** `bounds`: the upper bounds, increasing, in the rows' unit; `le` shows them times `scale` (ms → s). */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly scale = 1,
  ) {}

  register(registry: MetricRegistry): this {
    return registry.register(this);
  }

  /** Adds one series from its rows: the value each row's count falls at, and the count. */
  set(labels: Record<string, string>, rows: readonly { readonly value: number; readonly count: number }[]): void {
    const buckets = this.bounds.map(() => 0);
    let count = 0;
    for (const row of rows) {
      count += row.count;
      this.bounds.forEach((bound, i) => {
        if (row.value <= bound) buckets[i] = (buckets[i] ?? 0) + row.count;
      });
    }
    this.series.push({ labels, buckets, count });
  }

  reset(): void {
    this.series = [];
  }

  collect(sink: SampleSink): void {
    for (const s of this.series) {
      this.bounds.forEach((bound, i) => sink.sample({ ...s.labels, le: bound * this.scale }, s.buckets[i] ?? 0, '_bucket'));
      sink.sample({ ...s.labels, le: '+Inf' }, s.count, '_bucket');
      sink.sample(s.labels, s.count, '_count');
    }
  }
}
