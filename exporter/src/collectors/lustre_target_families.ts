// Families of the Lustre server collectors over the target views their last refill kept: nothing is
// copied into metric objects; the samples are read from the views when the scrape renders them
// (lustre/series-samples.ts: a view's samples stay as the refill saw them until the next update).
// Series come out in the order the refill walks them (target by target, series by series, field by
// field), which is the order prom-client's reset-and-refilled metrics wrote them in.
import type { ExportField, FieldKind } from '../lustre/export-fields.js';
import type { SampledTarget } from '../lustre/refill.js';
import { renderLabels, type Labels, type MetricFamily, type MetricType } from '../scrape/metric-family.js';

type Emit = (labels: Labels, value: number) => void;

/** A family with samples of each target as a whole (counts, reasons, caps), handed out by `samples`. */
export function perTargetFamily<V>(name: string, help: string, type: MetricType, views: () => readonly V[], samples: (view: V, emit: Emit) => void): MetricFamily {
  return {
    name,
    help,
    type,
    collect(sink): void {
      const emit: Emit = (labels, value) => sink.sample(labels, value);
      for (const view of views()) samples(view, emit);
    },
  };
}

/** What names a series in a view's samples. */
type SeriesOfView<V> = V extends SampledTarget<infer S> ? S : never;

/** A counter family of the targets' series samples of one field kind, labelled by `labels`. */
export function fieldFamily<V extends SampledTarget<unknown>>(
  name: string,
  help: string,
  kind: FieldKind,
  views: () => readonly V[],
  labels: (view: V, series: SeriesOfView<V>, field: ExportField) => Labels,
): MetricFamily {
  return {
    name,
    help,
    type: 'counter',
    collect(sink): void {
      for (const view of views()) view.samples.forEach((series, field, value) => sink.sample(labels(view, series as SeriesOfView<V>, field), value), kind);
    },
  };
}

/** How two samples of one label set make its value: added up (a counter's inc()) or the last one (a gauge's set()). */
export type Combine = 'sum' | 'last';

/**
 * A family with one series per label set, where the set first appears, its samples combined as
 * prom-client's metrics combined them: where two targets carry the same labels (a file system mounted
 * several times: both are `mount="_several"`), their counts make one series.
 */
export function combinedFamily(name: string, help: string, type: MetricType, fill: (add: Emit) => void, combine: Combine = 'sum'): MetricFamily {
  return {
    name,
    help,
    type,
    collect(sink): void {
      const values = new Map<string, number>();
      fill((labels, value) => {
        const key = renderLabels(labels);
        values.set(key, combine === 'last' ? value : (values.get(key) ?? 0) + value);
      });
      for (const [labelText, value] of values) sink.rendered(labelText, value);
    },
  };
}
