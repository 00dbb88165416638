// Counts the series a registry's families hand out now, for jobio_exporter_series{collector}.
import type { SampleSink } from './metric-family.js';
import type { MetricRegistry } from './metric-registry.js';

export async function countSeries(registry: MetricRegistry): Promise<number> {
  let count = 0;
  const counter: SampleSink = {
    sample: () => (count += 1),
    rendered: () => (count += 1),
    renderedBytes: () => (count += 1),
    renderedRun: (_first, tails) => (count += tails.length),
  };
  for (const family of registry.list()) await family.collect(counter);
  return count;
}
