// The metrics of the lustre_exports collector (names fixed in docs/metrics.md): the one Lustre refill
// (lustre/refill.ts) hands them the target views of a settled StatsAccumulator, whose series are
// client NIDs, and the families read those views when the scrape renders them.
import type { Labels } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { LustreWriter } from '../lustre/refill.js';
import type { StatsAccumulator, StatsTargetView } from '../lustre/stats-accumulator.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { fieldFamily, perTargetFamily } from './lustre_target_families.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreExportsMetrics implements LustreWriter<StatsAccumulator> {
  /** The target views of the last refill, read by the families when the scrape renders them. */
  private views: StatsTargetView[] = [];
  private readonly source: SourceMetrics;

  constructor(registry: MetricRegistry, maxClients: number, maxTargets = Number.POSITIVE_INFINITY) {
    this.source = new SourceMetrics(registry, 'jobio_lustre_export', 'lustre_exports', maxTargets);
    const views = (): readonly StatsTargetView[] => this.views;
    const client = (t: StatsTargetView, series: string): Labels => ({ target: t.name, client: series });
    for (const family of [
      fieldFamily('jobio_lustre_export_read_bytes_total', 'Bytes read by the client (NID) from the target (sum of the export stats read_bytes), in bytes.', 'read_bytes', views, client),
      fieldFamily('jobio_lustre_export_write_bytes_total', 'Bytes written by the client (NID) to the target (sum of the export stats write_bytes), in bytes.', 'write_bytes', views, client),
      fieldFamily('jobio_lustre_export_operations_total', 'Requests of the client (NID) on the target per Lustre operation (export stats samples).', 'operations', views, (t, series, field) => ({
        target: t.name,
        client: series,
        operation: field.operation,
      })),
      // a target whose clients were not read this scrape has no client count (its series are kept)
      perTargetFamily('jobio_lustre_export_clients', 'Client exports (stats files) in the last read of the target.', 'gauge', views, (t, emit) =>
        t.read ? emit({ target: t.name }, t.clients) : undefined,
      ),
      perTargetFamily('jobio_lustre_export_folded_clients', 'Clients whose increments went to client="_other" in the last scrape for want of a free slot.', 'gauge', views, (t, emit) =>
        emit({ target: t.name }, t.foldedClients),
      ),
      perTargetFamily('jobio_lustre_export_max_clients', 'The cap on clients with their own series per target (--collector.lustre_exports.max-clients).', 'gauge', views, (t, emit) =>
        emit({ target: t.name }, maxClients),
      ),
      perTargetFamily('jobio_lustre_export_parse_errors_total', 'Export stats lines that fit no known shape and were skipped.', 'counter', views, (t, emit) =>
        emit({ target: t.name }, t.parseErrorsTotal),
      ),
      perTargetFamily(
        'jobio_lustre_export_read_errors_total',
        'Export stats files of the clients of the target that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
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
