// The metrics of the lustre_stats collector (names fixed in docs/metrics.md): the families of a
// StatsAccumulator (lustre_stats_families.ts) whose only series per target is '', the target's own
// stats, labelled by the target alone.
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { StatsFamilies } from './lustre_stats_families.js';

export class LustreStatsMetrics extends StatsFamilies {
  constructor(registry: MetricRegistry, maxTargets = Number.POSITIVE_INFINITY) {
    super(
      registry,
      {
        prefix: 'jobio_lustre_target',
        collector: 'lustre_stats',
        help: {
          read_bytes_total: 'Bytes read from the target by all clients (sum of read_bytes in obdfilter stats), in bytes.',
          write_bytes_total: 'Bytes written to the target by all clients (sum of write_bytes in obdfilter stats), in bytes.',
          operations_total: 'Requests on the target per Lustre operation (samples in obdfilter stats / md_stats).',
          parse_errors_total: 'Target stats lines that fit no known shape and were skipped.',
          read_errors_total:
            'Target stats files (stats, md_stats) that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
        },
        labels: (t) => ({ target: t.name }),
      },
      maxTargets,
    );
  }
}
