// Counts the series a registry currently holds, for jobio_exporter_series{collector}.
import type { Registry } from 'prom-client';

/** A metric that can count its series without listing them (the per-job counters of lustre_jobstats). */
interface CountsItsSeries {
  seriesCount(): number;
}

function countsItsSeries(metric: unknown): metric is CountsItsSeries {
  return typeof (metric as Partial<CountsItsSeries>).seriesCount === 'function';
}

export async function countSeries(registry: Registry): Promise<number> {
  let count = 0;
  for (const metric of registry.getMetricsAsArray()) {
    if (countsItsSeries(metric)) {
      count += metric.seriesCount();
      continue;
    }
    const { values } = await (metric as unknown as { get(): Promise<{ values?: unknown[] }> }).get();
    count += values?.length ?? 0;
  }
  return count;
}
