// Collector `process`: the exporter's own Node.js process (CPU, memory, file descriptors, event loop
// lag, GC) under prom-client's standard names (process_*, nodejs_*), as every Node exporter has.
import { collectDefaultMetrics } from 'prom-client';
import { promRegisters } from '../scrape/metric-registry.js';
import { defineCollector } from '../scrape/define-collector.js';

export const processCollector = defineCollector({
  name: 'process',
  help: "The exporter's own process: CPU, memory, open files, event-loop lag (process_*, nodejs_*).",
  defaultEnabled: true,
  flags: {},
  create({ registry }) {
    collectDefaultMetrics({ register: promRegisters(registry)[0] });
    // prom-client names these gauges with a `_total` suffix, which `promtool check metrics` rejects
    // (only counters may end in _total). The un-suffixed nodejs_active_* gauges carry the same data.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
      registry.removeSingleMetric(name);
    }
    return { update: () => Promise.resolve('ok') };
  },
});
