// A family with one series per label set, its samples combined as prom-client's metrics combined the
// samples of one label set: added up (a counter's inc()) or the last one kept (a gauge's set()). For
// collectors whose sources may hand out one label set twice (a file system mounted twice, a job seen
// twice), so the exposition stays what prom-client wrote.
import { renderLabels, type Labels, type MetricFamily, type MetricType } from './metric-family.js';

type Emit = (labels: Labels, value: number) => void;

/** How two samples of one label set make its value: added up (a counter's inc()) or the last one (a gauge's set()). */
export type Combine = 'sum' | 'last';

/** A family with one series per label set, where the set first appears, its samples combined by `combine`. */
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
