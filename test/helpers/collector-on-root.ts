// A collector created directly (no exporter process) on a temporary host root: procfs and sysfs
// below it, its own registry, a logger that only speaks of errors. For unit tests of one collector.
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import { join } from 'node:path';
import type { Collector, CollectorDescriptor, CollectorOptions } from '../../exporter/src/scrape/collector.js';
import { createLogger } from '../../exporter/src/util/logger.js';

export function collectorOnRoot(descriptor: CollectorDescriptor, root: string, options: CollectorOptions = {}): { registry: MetricRegistry; collector: Collector } {
  const registry = new MetricRegistry();
  const collector = descriptor.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options, logger: createLogger('error', 'json') });
  return { registry, collector };
}
