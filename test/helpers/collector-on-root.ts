// A collector created directly (no exporter process) on a temporary host root: procfs and sysfs
// below it, its own registry, a logger that only speaks of errors. For unit tests of one collector.
import { Registry } from 'prom-client';
import { join } from 'node:path';
import type { Collector, CollectorDescriptor, CollectorOptions } from '../../exporter/src/scrape/collector.js';
import { createLogger } from '../../exporter/src/util/logger.js';

export function collectorOnRoot(descriptor: CollectorDescriptor, root: string, options: CollectorOptions = {}): { registry: Registry; collector: Collector } {
  const registry = new Registry();
  const collector = descriptor.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options, logger: createLogger('error', 'json') });
  return { registry, collector };
}
