// The metrics of the lustre_stats collector (names fixed in docs/metrics.md), written by the one
// Lustre refill (lustre/refill.ts) from a settled StatsAccumulator whose only series per target is ''.
import type { Counter } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { ExportField } from '../lustre/export-fields.js';
import type { LustreWriter } from '../lustre/refill.js';
import type { StatsAccumulator, StatsTargetView } from '../lustre/stats-accumulator.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { metricsIn } from '../scrape/metric-factory.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreStatsMetrics implements LustreWriter<StatsAccumulator> {
  private readonly readBytes: Counter<'target'>;
  private readonly writeBytes: Counter<'target'>;
  private readonly operations: Counter<'target' | 'operation'>;
  private readonly parseErrors: Counter<'target'>;
  private readonly readErrors: Counter<'target' | 'reason'>;

  private readonly source: SourceMetrics;

  constructor(registry: MetricRegistry, maxTargets = Number.POSITIVE_INFINITY) {
    this.source = new SourceMetrics(registry, 'jobio_lustre_target', 'lustre_stats', maxTargets);
    const { counter } = metricsIn(registry);
    this.readBytes = counter('jobio_lustre_target_read_bytes_total', 'Bytes read from the target by all clients (sum of read_bytes in obdfilter stats), in bytes.', ['target'] as const);
    this.writeBytes = counter('jobio_lustre_target_write_bytes_total', 'Bytes written to the target by all clients (sum of write_bytes in obdfilter stats), in bytes.', ['target'] as const);
    this.operations = counter('jobio_lustre_target_operations_total', 'Requests on the target per Lustre operation (samples in obdfilter stats / md_stats).', ['target', 'operation']);
    this.parseErrors = counter('jobio_lustre_target_parse_errors_total', 'Target stats lines that fit no known shape and were skipped.', ['target'] as const);
    this.readErrors = counter(
      'jobio_lustre_target_read_errors_total',
      'Target stats files (stats, md_stats) that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
      ['target', 'reason'],
    );
  }

  clear(): void {
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.parseErrors, this.readErrors]) m.reset();
    this.source.clear();
  }

  whole(acc: StatsAccumulator): void {
    this.source.set(acc);
  }

  target(t: StatsTargetView): void {
    this.parseErrors.inc({ target: t.name }, t.parseErrorsTotal);
    for (const reason of READ_ERROR_REASONS) this.readErrors.inc({ target: t.name, reason }, t.readErrors[reason]);
  }

  sample(t: StatsTargetView, _series: string, { kind, operation }: ExportField, value: number): void {
    const target = t.name;
    if (kind === 'read_bytes') this.readBytes.inc({ target }, value);
    else if (kind === 'write_bytes') this.writeBytes.inc({ target }, value);
    else if (kind === 'operations') this.operations.inc({ target, operation }, value);
  }
}
