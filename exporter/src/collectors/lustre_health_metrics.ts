// The metrics of the lustre_health collector (names fixed in docs/metrics.md): gauges refilled from
// each scrape's reading, plus a running count of the values that could not be read or parsed.
import type { Counter, Gauge, Registry } from 'prom-client';
import { metricsIn } from '../scrape/metric-factory.js';
import { ShownWhilePresent } from './lustre_targets_metrics.js';
import { RECOVERY_STATES, targetFs, type CapacityFile, type RecoveryStatus } from '../parsers/lustre-health.js';

type TargetLabels = 'fs' | 'target';

/** Why a value is missing: its file could not be read, or it held no value of the known shape. */
export type HealthErrorReason = 'read' | 'parse';

export class LustreHealthMetrics {
  private readonly capacity: Readonly<Record<CapacityFile, Gauge<TargetLabels>>>;
  /** Label-less: shown only while health_check was read (prom-client would show 0 otherwise). */
  private readonly healthy: ShownWhilePresent<Gauge>;
  private readonly recoveryStatus: Gauge<TargetLabels | 'status'>;
  private readonly recoveryCompleted: Gauge<TargetLabels>;
  private readonly recoveryRecoverable: Gauge<TargetLabels>;
  private readonly recoveryRemaining: Gauge<TargetLabels>;
  private readonly recoveryEvicted: Gauge<TargetLabels>;
  private readonly errors: Counter<'reason'>;
  private readonly errorTotals = new Map<HealthErrorReason, number>();

  constructor(registry: Registry) {
    const { counter, gauge } = metricsIn(registry);
    const labels = ['fs', 'target'] as const;
    this.capacity = {
      kbytestotal: gauge('jobio_lustre_target_size_bytes', 'Size of the target (kbytestotal of its osd), in bytes.', labels),
      kbytesfree: gauge('jobio_lustre_target_free_bytes', 'Free space on the target, reserved blocks included (kbytesfree of its osd), in bytes.', labels),
      kbytesavail: gauge('jobio_lustre_target_avail_bytes', 'Space on the target available to clients (kbytesavail of its osd), in bytes.', labels),
      filestotal: gauge('jobio_lustre_target_files', 'Inodes (objects on an OST) of the target (filestotal of its osd).', labels),
      filesfree: gauge('jobio_lustre_target_files_free', 'Free inodes (objects on an OST) of the target (filesfree of its osd).', labels),
    };
    this.healthy = ShownWhilePresent.gauge(
      registry,
      'jobio_lustre_health_check_healthy',
      "1 when this server's Lustre health_check says healthy, 0 when it says NOT HEALTHY, a device reported unhealthy or an LBUG.",
    );
    this.recoveryStatus = gauge('jobio_lustre_target_recovery_status', 'Recovery state of the target (recovery_status): 1 for the current status, 0 for the others.', [...labels, 'status']);
    this.recoveryCompleted = gauge('jobio_lustre_target_recovery_completed_clients', 'Clients that completed recovery (completed_clients of recovery_status).', labels);
    this.recoveryRecoverable = gauge('jobio_lustre_target_recovery_clients', 'Clients the target expects back in recovery (the total of completed_clients or connected_clients).', labels);
    this.recoveryRemaining = gauge('jobio_lustre_target_recovery_time_remaining_seconds', 'Seconds left before the recovery window closes, while RECOVERING (time_remaining).', labels);
    this.recoveryEvicted = gauge('jobio_lustre_target_recovery_evicted_clients', 'Clients evicted because they did not come back in time, while RECOVERING (evicted_clients).', labels);
    this.errors = counter(
      'jobio_lustre_health_errors_total',
      'Capacity, health_check and recovery_status values skipped: reason="read" (the file could not be read) or "parse" (no value of the known shape).',
      ['reason'] as const,
    );
  }

  clear(): void {
    for (const m of [...Object.values(this.capacity), this.recoveryStatus, this.recoveryCompleted, this.recoveryRecoverable, this.recoveryRemaining, this.recoveryEvicted, this.errors]) m.reset();
    this.healthy.clear();
  }

  count(reason: HealthErrorReason, n = 1): void {
    this.errorTotals.set(reason, (this.errorTotals.get(reason) ?? 0) + n);
  }

  /** Starts a refill: everything cleared, the error totals shown (both reasons, from 0). */
  begin(): void {
    this.clear();
    for (const reason of ['read', 'parse'] as const) this.errors.inc({ reason }, this.errorTotals.get(reason) ?? 0);
  }

  capacityValue(target: string, file: CapacityFile, value: bigint): void {
    // Lustre prints kilobytes; a float64 holds bytes exactly up to 8 PiB per target.
    this.capacity[file].set({ fs: targetFs(target), target }, Number(file.startsWith('kbytes') ? value * 1024n : value));
  }

  health(healthy: boolean): void {
    this.healthy.show().set(healthy ? 1 : 0);
  }

  recovery(target: string, r: RecoveryStatus): void {
    const labels = { fs: targetFs(target), target };
    for (const status of RECOVERY_STATES) this.recoveryStatus.set({ ...labels, status }, status === r.status ? 1 : 0);
    if (r.completedClients !== undefined) this.recoveryCompleted.set(labels, r.completedClients);
    if (r.recoverableClients !== undefined) this.recoveryRecoverable.set(labels, r.recoverableClients);
    if (r.timeRemainingSeconds !== undefined) this.recoveryRemaining.set(labels, r.timeRemainingSeconds);
    if (r.evictedClients !== undefined) this.recoveryEvicted.set(labels, r.evictedClients);
  }
}
