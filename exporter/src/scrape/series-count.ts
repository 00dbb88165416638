// Counts the series a registry currently holds, for jobio_exporter_series{collector}.
import type { Registry } from 'prom-client';

export async function countSeries(registry: Registry): Promise<number> {
  let count = 0;
  for (const metric of await registry.getMetricsAsJSON()) {
    const values = (metric as unknown as { values?: unknown[] }).values;
    count += values?.length ?? 0;
  }
  return count;
}
