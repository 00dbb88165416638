// `<prefix>_targets_dropped` and `<prefix>_max_targets` of the Lustre collectors: how many targets were
// present but not read (beyond --collector.<name>.max-targets). Without labels prom-client shows 0 even
// after reset(), so these are registered only while the collector has Lustre targets to report on.
import { Gauge, type Registry } from 'prom-client';

export class TargetBoundMetrics {
  private readonly dropped: Gauge;
  private readonly max: Gauge;
  private readonly names: readonly string[];

  constructor(
    private readonly registry: Registry,
    prefix: string,
    collector: string,
    private readonly maxTargets: number,
  ) {
    this.names = [`${prefix}_targets_dropped`, `${prefix}_max_targets`];
    this.dropped = new Gauge({ name: `${prefix}_targets_dropped`, help: `Lustre targets present but not read in the last scrape, beyond --collector.${collector}.max-targets.`, registers: [] });
    this.max = new Gauge({ name: `${prefix}_max_targets`, help: `The cap on targets read per scrape (--collector.${collector}.max-targets).`, registers: [] });
  }

  clear(): void {
    for (const name of this.names) this.registry.removeSingleMetric(name);
  }

  set(dropped: number): void {
    this.registry.registerMetric(this.dropped);
    this.dropped.set(dropped);
    if (!Number.isFinite(this.maxTargets)) return;
    this.registry.registerMetric(this.max);
    this.max.set(this.maxTargets);
  }
}
