// The metrics of the lustre_stats collector (names fixed in docs/metrics.md): the one Lustre refill
// (lustre/refill.ts) hands them the target views of a settled StatsAccumulator, whose only series per
// target is '', and the families read those views when the scrape renders them.
import type { Labels } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { LustreWriter } from '../lustre/refill.js';
import type { StatsAccumulator, StatsTargetView } from '../lustre/stats-accumulator.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { fieldFamily, perTargetFamily } from './lustre_target_families.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreStatsMetrics implements LustreWriter<StatsAccumulator> {
  /** The target views of the last refill, read by the families when the scrape renders them. */
  private views: StatsTargetView[] = [];
  private readonly source: SourceMetrics;

  constructor(registry: MetricRegistry, maxTargets = Number.POSITIVE_INFINITY) {
    this.source = new SourceMetrics(registry, 'jobio_lustre_target', 'lustre_stats', maxTargets);
    const views = (): readonly StatsTargetView[] => this.views;
    const target = (t: StatsTargetView): Labels => ({ target: t.name });
    for (const family of [
      fieldFamily('jobio_lustre_target_read_bytes_total', 'Bytes read from the target by all clients (sum of read_bytes in obdfilter stats), in bytes.', 'read_bytes', views, target),
      fieldFamily('jobio_lustre_target_write_bytes_total', 'Bytes written to the target by all clients (sum of write_bytes in obdfilter stats), in bytes.', 'write_bytes', views, target),
      fieldFamily('jobio_lustre_target_operations_total', 'Requests on the target per Lustre operation (samples in obdfilter stats / md_stats).', 'operations', views, (t, _series, field) => ({
        target: t.name,
        operation: field.operation,
      })),
      perTargetFamily('jobio_lustre_target_parse_errors_total', 'Target stats lines that fit no known shape and were skipped.', 'counter', views, (t, emit) =>
        emit({ target: t.name }, t.parseErrorsTotal),
      ),
      perTargetFamily(
        'jobio_lustre_target_read_errors_total',
        'Target stats files (stats, md_stats) that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
        'counter',
        views,
        (t, emit) => {
          for (const reason of READ_ERROR_REASONS) emit({ target: t.name, reason }, t.readErrors[reason]);
        },
      ),
    ])
      registry.register(family);
  }

  clear(): void {
    this.views = [];
    this.source.clear();
  }

  whole(acc: StatsAccumulator): void {
    this.source.set(acc);
  }

  target(t: StatsTargetView): void {
    this.views.push(t);
  }
}
