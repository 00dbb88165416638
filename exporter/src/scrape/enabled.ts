// Decides which collectors run and instantiates them, each with its own registry and options.
import { MetricRegistry } from './metric-registry.js';
import type { CollectorDescriptor, CollectorOptions } from './collector.js';
import type { EnabledCollector } from './scraper.js';
import type { Paths } from '../util/paths.js';
import type { Logger } from '../util/logger.js';

export interface CollectorSelection {
  /** `--collector.disable-defaults`: only collectors named explicitly run. */
  readonly disableDefaults: boolean;
  /** Explicit `--collector.<name>` (true) / `--no-collector.<name>` (false). */
  readonly explicit: ReadonlyMap<string, boolean>;
}

export function isEnabled(descriptor: CollectorDescriptor, selection: CollectorSelection): boolean {
  const explicit = selection.explicit.get(descriptor.name);
  if (explicit !== undefined) return explicit;
  return descriptor.defaultEnabled && !selection.disableDefaults;
}

export function createEnabledCollectors(
  descriptors: readonly CollectorDescriptor[],
  selection: CollectorSelection,
  options: ReadonlyMap<string, CollectorOptions>,
  paths: Paths,
  logger: Logger,
): EnabledCollector[] {
  const enabled: EnabledCollector[] = [];
  for (const descriptor of descriptors) {
    if (!isEnabled(descriptor, selection)) continue;
    const registry = new MetricRegistry();
    const collector = descriptor.create({
      registry,
      paths,
      options: options.get(descriptor.name) ?? {},
      logger: logger.child({ collector: descriptor.name }),
    });
    enabled.push({ name: descriptor.name, collector, registry });
  }
  return enabled;
}
