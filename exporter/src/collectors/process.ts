// Collector `process`: the exporter's own Node.js process (CPU, memory, file descriptors, event loop
// lag, GC) under prom-client's standard names (process_*, nodejs_*), as every Node exporter has.
// prom-client gathers them into its own registry; each of its metrics is a family here, read through
// its public get() when the scrape renders it.
import { collectDefaultMetrics, Counter, Histogram, Registry, Summary, type Metric } from 'prom-client';
import { renderLabels, type Labels, type MetricFamily, type MetricType, type SampleSink } from '../scrape/metric-family.js';
import { defineCollector } from '../scrape/define-collector.js';

/** A value as prom-client's get() hands it out (a histogram's carry metricName, `_bucket`…). */
interface PromValue {
  readonly value: number;
  readonly labels?: Labels;
  readonly metricName?: string;
  readonly sharedLabels?: Labels;
}

/** The metrics of a prom-client registry as families: their values as prom-client's text rendering lists them. */
export function promFamilies(source: Registry): MetricFamily[] {
  return source.getMetricsAsArray().flatMap(({ name, help }) => {
    const metric = source.getSingleMetric(name);
    if (metric === undefined) return [];
    // prom-client names the type only in what get() returns; the class says it before.
    const type: MetricType = metric instanceof Counter ? 'counter' : metric instanceof Histogram ? 'histogram' : metric instanceof Summary ? 'summary' : 'gauge';
    return [{ name, help, type, collect: (sink: SampleSink) => collectProm(metric, name, sink) }];
  });
}

async function collectProm(metric: Metric, name: string, sink: SampleSink): Promise<void> {
  const { values } = (await metric.get()) as { values: readonly PromValue[] };
  for (const v of values) {
    const suffix = v.metricName === undefined ? '' : v.metricName.slice(name.length);
    const shared = v.sharedLabels ?? {};
    if (Object.keys(shared).length === 0) {
      sink.sample(v.labels ?? {}, v.value, suffix);
      continue;
    }
    const own: Record<string, string | number> = {};
    for (const [k, value] of Object.entries(v.labels ?? {})) if (!Object.hasOwn(shared, k)) own[k] = value;
    const text = [renderLabels(own), renderLabels(shared)].filter((t) => t !== '').join(',');
    sink.rendered(text, v.value, suffix);
  }
}

export const processCollector = defineCollector({
  name: 'process',
  help: "The exporter's own process: CPU, memory, open files, event-loop lag (process_*, nodejs_*).",
  defaultEnabled: true,
  flags: {},
  create({ registry }) {
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    // prom-client names these gauges with a `_total` suffix, which `promtool check metrics` rejects
    // (only counters may end in _total). The un-suffixed nodejs_active_* gauges carry the same data.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      defaults.removeSingleMetric(name);
    }
    for (const family of promFamilies(defaults)) registry.register(family);
    return { update: () => Promise.resolve('ok') };
  },
});
