// The metrics of the two collectors that read Lustre stats files into a StatsAccumulator (names fixed
// in docs/metrics.md): lustre_stats, whose only series per target is '' (the target's own stats), and
// lustre_exports, whose series are client NIDs. Both have the same families under their own prefix
// and help; the one Lustre refill (lustre/refill.ts) hands them the target views of the settled
// accumulator, and the families read those views when the scrape renders them.
import type { Labels, MetricFamily } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { StatsAccumulator, StatsTargetView } from '../lustre/stats-accumulator.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { fieldFamily, perTargetFamily, TargetViewsWriter } from './lustre_target_families.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

/** What tells one collector's families from the other's. */
export interface StatsFamiliesTable {
  /** The families' names start so (`jobio_lustre_target`, `jobio_lustre_export`). */
  readonly prefix: string;
  /** The collector's name, as its flags say it (--collector.<name>.max-targets). */
  readonly collector: string;
  /** The help of each family, by its name after the prefix. */
  readonly help: {
    readonly read_bytes_total: string;
    readonly write_bytes_total: string;
    readonly operations_total: string;
    readonly parse_errors_total: string;
    readonly read_errors_total: string;
  };
  /** The labels of a series of the target (the operations add theirs after). */
  readonly labels: (t: StatsTargetView, series: string) => Labels;
  /** Families of each target as a whole, listed after the operations (the exports' client counts). */
  readonly perTarget?: (views: () => readonly StatsTargetView[]) => readonly MetricFamily[];
}

export class StatsFamilies extends TargetViewsWriter<StatsAccumulator> {
  constructor(registry: MetricRegistry, table: StatsFamiliesTable, maxTargets: number) {
    const { prefix, help, labels } = table;
    super(new SourceMetrics(registry, prefix, table.collector, maxTargets));
    const views = this.shown;
    for (const family of [
      fieldFamily(`${prefix}_read_bytes_total`, help.read_bytes_total, 'read_bytes', views, labels),
      fieldFamily(`${prefix}_write_bytes_total`, help.write_bytes_total, 'write_bytes', views, labels),
      fieldFamily(`${prefix}_operations_total`, help.operations_total, 'operations', views, (t, series, field) => ({ ...labels(t, series), operation: field.operation })),
      ...(table.perTarget?.(views) ?? []),
      perTargetFamily(`${prefix}_parse_errors_total`, help.parse_errors_total, 'counter', views, (t, emit) => emit({ target: t.name }, t.parseErrorsTotal)),
      perTargetFamily(`${prefix}_read_errors_total`, help.read_errors_total, 'counter', views, (t, emit) => {
        for (const reason of READ_ERROR_REASONS) emit({ target: t.name, reason }, t.readErrors[reason]);
      }),
    ])
      registry.register(family);
  }
}
