// The metrics of the lustre_exports collector (names fixed in docs/metrics.md), written by the one
// Lustre refill (lustre/refill.ts) from a settled StatsAccumulator whose series are client NIDs.
import type { Counter, Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { ExportField } from '../lustre/export-fields.js';
import type { LustreWriter } from '../lustre/refill.js';
import type { StatsAccumulator, StatsTargetView } from '../lustre/stats-accumulator.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { metricsIn } from '../scrape/metric-factory.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreExportsMetrics implements LustreWriter<StatsAccumulator> {
  private readonly readBytes: Counter<'target' | 'client'>;
  private readonly writeBytes: Counter<'target' | 'client'>;
  private readonly operations: Counter<'target' | 'client' | 'operation'>;
  private readonly clients: Gauge<'target'>;
  private readonly folded: Gauge<'target'>;
  private readonly maxClients: Gauge<'target'>;
  private readonly parseErrors: Counter<'target'>;
  private readonly readErrors: Counter<'target' | 'reason'>;
  private readonly source: SourceMetrics;

  constructor(
    registry: MetricRegistry,
    private readonly maxClientsValue: number,
    maxTargets = Number.POSITIVE_INFINITY,
  ) {
    this.source = new SourceMetrics(registry, 'jobio_lustre_export', 'lustre_exports', maxTargets);
    const { counter, gauge } = metricsIn(registry);
    this.readBytes = counter('jobio_lustre_export_read_bytes_total', 'Bytes read by the client (NID) from the target (sum of the export stats read_bytes), in bytes.', ['target', 'client']);
    this.writeBytes = counter('jobio_lustre_export_write_bytes_total', 'Bytes written by the client (NID) to the target (sum of the export stats write_bytes), in bytes.', ['target', 'client']);
    this.operations = counter('jobio_lustre_export_operations_total', 'Requests of the client (NID) on the target per Lustre operation (export stats samples).', ['target', 'client', 'operation']);
    this.clients = gauge('jobio_lustre_export_clients', 'Client exports (stats files) in the last read of the target.', ['target'] as const);
    this.folded = gauge('jobio_lustre_export_folded_clients', 'Clients whose increments went to client="_other" in the last scrape for want of a free slot.', ['target'] as const);
    this.maxClients = gauge('jobio_lustre_export_max_clients', 'The cap on clients with their own series per target (--collector.lustre_exports.max-clients).', ['target'] as const);
    this.parseErrors = counter('jobio_lustre_export_parse_errors_total', 'Export stats lines that fit no known shape and were skipped.', ['target'] as const);
    this.readErrors = counter(
      'jobio_lustre_export_read_errors_total',
      'Export stats files of the clients of the target that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
      ['target', 'reason'],
    );
  }

  clear(): void {
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.clients, this.folded, this.maxClients, this.parseErrors, this.readErrors]) m.reset();
    this.source.clear();
  }

  whole(acc: StatsAccumulator): void {
    this.source.set(acc);
  }

  target(t: StatsTargetView): void {
    const target = t.name;
    if (t.read) this.clients.set({ target }, t.clients);
    this.folded.set({ target }, t.foldedClients);
    this.maxClients.set({ target }, this.maxClientsValue);
    this.parseErrors.inc({ target }, t.parseErrorsTotal);
    for (const reason of READ_ERROR_REASONS) this.readErrors.inc({ target, reason }, t.readErrors[reason]);
  }

  sample(t: StatsTargetView, client: string, { kind, operation }: ExportField, value: number): void {
    const target = t.name;
    if (kind === 'read_bytes') this.readBytes.inc({ target, client }, value);
    else if (kind === 'write_bytes') this.writeBytes.inc({ target, client }, value);
    else if (kind === 'operations') this.operations.inc({ target, client, operation }, value);
  }
}
