// The metrics of the lustre_stats collector (names fixed in docs/metrics.md), refilled from a settled
// StatsAccumulator whose only series per target has client ''.
import { Counter, type Registry } from 'prom-client';
import type { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { TargetBoundMetrics } from './lustre_targets_metrics.js';

export class LustreStatsMetrics {
  private readonly readBytes: Counter<'target'>;
  private readonly writeBytes: Counter<'target'>;
  private readonly operations: Counter<'target' | 'operation'>;
  private readonly parseErrors: Counter<'target'>;

  private readonly targetBound: TargetBoundMetrics;

  constructor(registry: Registry, maxTargets = Number.POSITIVE_INFINITY) {
    this.targetBound = new TargetBoundMetrics(registry, 'jobio_lustre_target', 'lustre_stats', maxTargets);
    const registers = [registry];
    this.readBytes = new Counter({ name: 'jobio_lustre_target_read_bytes_total', help: 'Bytes read from the target by all clients (sum of read_bytes in obdfilter stats), in bytes.', labelNames: ['target'] as const, registers });
    this.writeBytes = new Counter({ name: 'jobio_lustre_target_write_bytes_total', help: 'Bytes written to the target by all clients (sum of write_bytes in obdfilter stats), in bytes.', labelNames: ['target'] as const, registers });
    this.operations = new Counter({ name: 'jobio_lustre_target_operations_total', help: 'Requests on the target per Lustre operation (samples in obdfilter stats / md_stats).', labelNames: ['target', 'operation'] as const, registers });
    this.parseErrors = new Counter({ name: 'jobio_lustre_target_parse_errors_total', help: 'Target stats lines that fit no known shape and were skipped.', labelNames: ['target'] as const, registers });
  }

  clear(): void {
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.parseErrors]) m.reset();
    this.targetBound.clear();
  }

  refill(acc: StatsAccumulator): void {
    this.clear();
    this.targetBound.set(acc.droppedTargets);
    for (const t of acc.targetViews()) {
      const target = t.name;
      this.parseErrors.inc({ target }, t.parseErrorsTotal);
      for (const s of t.series) {
        for (const { kind, operation, value } of acc.samples(s)) {
          if (kind === 'read_bytes') this.readBytes.inc({ target }, value);
          else if (kind === 'write_bytes') this.writeBytes.inc({ target }, value);
          else if (kind === 'operations') this.operations.inc({ target, operation }, value);
        }
      }
    }
  }
}
