// The metrics of the lustre_exports collector (names fixed in docs/metrics.md): the families of a
// StatsAccumulator (lustre_stats_families.ts) whose series are client NIDs, labelled by target and
// client, and each target's client counts and cap.
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { perTargetFamily } from './lustre_target_families.js';
import { StatsFamilies } from './lustre_stats_families.js';

export class LustreExportsMetrics extends StatsFamilies {
  constructor(registry: MetricRegistry, maxClients: number, maxTargets = Number.POSITIVE_INFINITY) {
    super(
      registry,
      {
        prefix: 'jobio_lustre_export',
        collector: 'lustre_exports',
        help: {
          read_bytes_total: 'Bytes read by the client (NID) from the target (sum of the export stats read_bytes), in bytes.',
          write_bytes_total: 'Bytes written by the client (NID) to the target (sum of the export stats write_bytes), in bytes.',
          operations_total: 'Requests of the client (NID) on the target per Lustre operation (export stats samples).',
          parse_errors_total: 'Export stats lines that fit no known shape and were skipped.',
          read_errors_total:
            'Export stats files of the clients of the target that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
        },
        labels: (t, series) => ({ target: t.name, client: series }),
        perTarget: (views) => [
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
        ],
      },
      maxTargets,
    );
  }
}
