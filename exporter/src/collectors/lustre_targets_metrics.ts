// Label-less metrics of the Lustre collectors: `<prefix>_targets_dropped` and `<prefix>_max_targets`
// (targets present but not read, beyond --collector.<name>.max-targets), `<prefix>_unreadable_dirs_total`
// and jobstats' unattributed lines. A label-less series has no "no value": these families are in the
// registry only while the collector has a value to report, and so come after the collector's others.
import type { MetricFamily, SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';

/** One label-less family, in the registry (where it is first shown) only between show() and clear(). */
export class ShownWhilePresent implements MetricFamily {
  private value = 0;

  private constructor(
    private readonly registry: MetricRegistry,
    readonly name: string,
    readonly help: string,
    readonly type: 'gauge' | 'counter',
  ) {}

  static gauge(registry: MetricRegistry, name: string, help: string): ShownWhilePresent {
    return new ShownWhilePresent(registry, name, help, 'gauge');
  }

  /** A counter's value is the source's own running total, shown as read. */
  static counter(registry: MetricRegistry, name: string, help: string): ShownWhilePresent {
    return new ShownWhilePresent(registry, name, help, 'counter');
  }

  clear(): void {
    this.registry.removeSingleMetric(this.name);
  }

  show(value: number): void {
    this.value = value;
    this.registry.register(this);
  }

  collect(sink: SampleSink): void {
    sink.sample({}, this.value);
  }
}

/** What a Lustre server collector says about its source as a whole. */
export interface SourceFigures {
  readonly droppedTargets: number;
  readonly unreadableDirsTotal: number;
}

/** The label-less metrics of a Lustre server collector: targets dropped, their cap, unreadable dirs. */
export class SourceMetrics {
  private readonly dropped: ShownWhilePresent;
  private readonly max: ShownWhilePresent;
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
    this.dropped.show(source.droppedTargets);
    if (Number.isFinite(this.maxTargets)) this.max.show(this.maxTargets);
    this.unreadableDirs.set(source.unreadableDirsTotal);
  }
}

/** Directories that exist but could not be listed, shown as a running total (written by set()). */
export class UnreadableDirsMetric {
  private readonly counter: ShownWhilePresent;

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
    this.counter.show(total);
  }
}
