// Label-less metrics of the Lustre collectors: `<prefix>_targets_dropped` and `<prefix>_max_targets`
// (targets present but not read, beyond --collector.<name>.max-targets), `<prefix>_unreadable_dirs_total`
// and jobstats' unattributed lines. Without labels prom-client shows 0 even after reset(), so these are
// registered only while the collector has Lustre targets to report on.
import { Counter, Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';

/** One label-less metric, in the registry only between show() and clear(). */
export class ShownWhilePresent<M extends Gauge | Counter> {
  private constructor(
    private readonly registry: MetricRegistry,
    private readonly name: string,
    private readonly metric: M,
  ) {}

  static gauge(registry: MetricRegistry, name: string, help: string): ShownWhilePresent<Gauge> {
    return new ShownWhilePresent(registry, name, new Gauge({ name, help, registers: [] }));
  }

  static counter(registry: MetricRegistry, name: string, help: string): ShownWhilePresent<Counter> {
    return new ShownWhilePresent(registry, name, new Counter({ name, help, registers: [] }));
  }

  clear(): void {
    this.registry.removeSingleMetric(this.name);
  }

  show(): M {
    this.registry.registerMetric(this.metric);
    return this.metric;
  }
}

/** What a Lustre server collector says about its source as a whole. */
export interface SourceFigures {
  readonly droppedTargets: number;
  readonly unreadableDirsTotal: number;
}

/** The label-less metrics of a Lustre server collector: targets dropped, their cap, unreadable dirs. */
export class SourceMetrics {
  private readonly dropped: ShownWhilePresent<Gauge>;
  private readonly max: ShownWhilePresent<Gauge>;
  private readonly unreadableDirs: UnreadableDirsMetric;

  constructor(
    registry: MetricRegistry,
    prefix: string,
    collector: string,
    private readonly maxTargets: number,
  ) {
    this.dropped = ShownWhilePresent.gauge(registry, `${prefix}_targets_dropped`, `Lustre targets present but not read in the last scrape, beyond --collector.${collector}.max-targets.`);
    this.max = ShownWhilePresent.gauge(registry, `${prefix}_max_targets`, `The cap on targets read per scrape (--collector.${collector}.max-targets).`);
    this.unreadableDirs = new UnreadableDirsMetric(registry, prefix);
  }

  clear(): void {
    this.dropped.clear();
    this.max.clear();
    this.unreadableDirs.clear();
  }

  set(source: SourceFigures): void {
    this.dropped.show().set(source.droppedTargets);
    if (Number.isFinite(this.maxTargets)) this.max.show().set(this.maxTargets);
    this.unreadableDirs.set(source.unreadableDirsTotal);
  }
}

/** Directories that exist but could not be listed, shown as a running total (written by set()). */
export class UnreadableDirsMetric {
  private readonly counter: ShownWhilePresent<Counter>;

  constructor(registry: MetricRegistry, prefix: string) {
    this.counter = ShownWhilePresent.counter(
      registry,
      `${prefix}_unreadable_dirs_total`,
      "Lustre directories that exist but could not be listed (EACCES, EIO): a kind directory (obdfilter/, mdt/, llite/ under one of the roots) or a target's; the targets in them were not read and keep what they had.",
    );
  }

  clear(): void {
    this.counter.clear();
  }

  set(total: number): void {
    const counter = this.counter.show();
    counter.reset();
    counter.inc(total);
  }
}
