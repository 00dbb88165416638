// Collector `process`: the exporter's own Node.js process (CPU, memory, file descriptors, event loop
// lag, GC) under prom-client's standard names (process_*, nodejs_*), as every Node exporter has.
import { collectDefaultMetrics } from 'prom-client';
import type { CollectorDescriptor } from '../scrape/collector.js';

export const processCollector: CollectorDescriptor = {
  name: 'process',
  help: "The exporter's own process: CPU, memory, open files, event-loop lag (process_*, nodejs_*).",
  defaultEnabled: true,
  flags: [],
  create({ registry }) {
    collectDefaultMetrics({ register: registry });
    return { update: async () => 'ok' };
  },
};
