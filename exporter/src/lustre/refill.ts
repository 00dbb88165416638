// How every Lustre metric class is written from its settled accumulator, and how the tests read one:
// reset everything, then write what the accumulator hands out, target by target and sample by sample.
// A series gone from the accumulator is gone from /metrics at the next refill because nothing is kept.
import type { ExportField } from './export-fields.js';
import type { TargetSamples } from './series-samples.js';
import type { U64 } from '../util/u64.js';

/** A target of a settled accumulator, with the samples of its series. */
export interface SampledTarget<S> {
  readonly name: string;
  readonly samples: TargetSamples<S>;
}

/** An accumulator (or a view of one) after finish(). */
export interface SettledSource<V extends SampledTarget<unknown>> {
  targetViews(): Iterable<V>;
}

/** The target view of a source, and what names a series in its samples. */
export type ViewOf<A> = A extends SettledSource<infer V> ? V : never;
export type SeriesOf<A> = ViewOf<A> extends SampledTarget<infer S> ? S : never;

/** What a metric class (or a test's reader) implements: it only writes what it is handed. */
export interface LustreWriter<A> {
  /** Resets every metric: also what the collector shows when its source is absent. */
  clear(): void;
  /** Writes the figures of the accumulator as a whole (targets dropped, lines without a target). */
  whole?(source: A): void;
  /** Writes the per-target figures of one target. */
  target(view: ViewOf<A>): void;
  /**
   * Writes one sample of the target's series. Left out by a writer that renders the samples itself
   * when Prometheus scrapes (lustre_jobstats keeps `view.samples` in target()).
   */
  sample?(view: ViewOf<A>, series: SeriesOf<A>, field: ExportField, value: number, total: U64): void;
}

/** The one refill: clear, the whole, then each target and its samples. */
export function refill<A extends SettledSource<SampledTarget<unknown>>>(source: A, writer: LustreWriter<A>): void {
  writer.clear();
  writer.whole?.(source);
  for (const view of source.targetViews() as Iterable<ViewOf<A>>) {
    writer.target(view);
    if (writer.sample === undefined) continue;
    const write = writer.sample.bind(writer);
    (view.samples as TargetSamples<SeriesOf<A>>).forEach((series, field, value, total) => write(view, series, field, value, total));
  }
}
