// The metrics of the lustre_health collector (names fixed in docs/metrics.md): gauges refilled from
// each scrape's reading, plus a running count of the values that could not be read or parsed.
import type { Counter, Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { metricsIn } from '../scrape/metric-factory.js';
import { ShownWhilePresent } from './lustre_targets_metrics.js';
import { CumulativeHistogram } from './cumulative_histogram.js';
import type { BrwHistogramKind, BrwStats } from '../parsers/lustre-brw-stats.js';
import { RECOVERY_STATES, targetFs, type CapacityFile, type LdlmFile, type RecoveryStatus, type ThreadFile } from '../parsers/lustre-health.js';
import type { ServiceStats } from '../parsers/lustre-service-stats.js';
import { IMPORT_STATES, type Direction, type ImportState, type OscHistogramKind, type OscRpcStats } from '../parsers/lustre-osc.js';

type TargetLabels = 'fs' | 'target';

/** 1, 2, 4, … 2^n. */
function powersOfTwo(n: number): number[] {
  return Array.from({ length: n + 1 }, (_, i) => 2 ** i);
}

/** Bounds of the linear histograms: exact up to 30 (Lustre's bucket 31 holds every larger value, so only +Inf takes it). */
const LINEAR_BOUNDS = [0, 1, 2, 4, 8, 16, 30];

/**
 * The brw_stats histograms: name, help, fixed bounds (in Lustre's unit), and the scale to the exported
 * unit. Log2 bounds cover Lustre's buckets exactly (16 MiB RPCs of 4 KiB pages, disk I/Os of 4 KiB to
 * 16 MiB, 1 ms to 16 s); a row above the top bound counts in +Inf only.
 */
const BRW_HISTOGRAMS: Readonly<Record<BrwHistogramKind, readonly [string, string, readonly number[], number]>> = {
  rpc_pages: ['jobio_lustre_target_brw_rpc_pages', 'Pages per bulk read or write RPC on the target (brw_stats "pages per bulk r/w").', powersOfTwo(12), 1],
  discontiguous_pages: ['jobio_lustre_target_brw_discontiguous_pages', 'Discontinuities in the file offsets of the pages of one bulk RPC (brw_stats "discontiguous pages").', LINEAR_BOUNDS, 1],
  discontiguous_blocks: ['jobio_lustre_target_brw_discontiguous_blocks', 'Discontinuities in the disk blocks of one bulk RPC (brw_stats "discontiguous blocks").', LINEAR_BOUNDS, 1],
  disk_fragments: ['jobio_lustre_target_brw_disk_fragments', 'Disk I/Os one bulk RPC was split into (brw_stats "disk fragmented I/Os").', LINEAR_BOUNDS.slice(1), 1],
  disk_ios_in_flight: ['jobio_lustre_target_brw_disk_ios_in_flight', 'Disk I/Os in flight on the target when one was submitted (brw_stats "disk I/Os in flight").', LINEAR_BOUNDS.slice(1), 1],
  disk_io_time: ['jobio_lustre_target_brw_disk_io_seconds', 'Time of one disk I/O of a bulk RPC, in seconds (brw_stats "I/O time", printed in ms).', powersOfTwo(14), 0.001],
  disk_io_size: ['jobio_lustre_target_brw_disk_io_size_bytes', 'Size of one disk I/O, in bytes (brw_stats "disk I/O size").', powersOfTwo(24).slice(12), 1],
};

/**
 * A client's osc rpc_stats histograms, summed over the OSCs of each file system (one series per file
 * system and direction, however many OSTs it has): pages per RPC up to 4096 (16 MiB of 4 KiB pages),
 * RPCs in flight linear like brw_stats' (Lustre's last bucket only in +Inf).
 */
const OSC_HISTOGRAMS: Readonly<Record<OscHistogramKind, readonly [string, string, readonly number[]]>> = {
  rpc_pages: ['jobio_lustre_osc_rpc_pages', 'Pages per read or write RPC this client sent to the file system\'s OSTs (osc rpc_stats "pages per rpc", summed over the OSCs).', powersOfTwo(12)],
  rpcs_in_flight: [
    'jobio_lustre_osc_rpcs_in_flight',
    'RPCs in flight to the OST, this one included, when this client sent a read or write RPC (osc rpc_stats "rpcs in flight", summed over the file system\'s OSCs).',
    LINEAR_BOUNDS,
  ],
};

/** Why a value is missing: its file could not be read, or it held no value of the known shape. */
export type HealthErrorReason = 'read' | 'parse';

export class LustreHealthMetrics {
  private readonly capacity: Readonly<Record<CapacityFile, Gauge<TargetLabels>>>;
  /** Label-less: shown only while health_check was read (prom-client would show 0 otherwise). */
  private readonly healthy: ShownWhilePresent;
  private readonly recoveryStatus: Gauge<TargetLabels | 'status'>;
  private readonly recoveryCompleted: Gauge<TargetLabels>;
  private readonly recoveryRecoverable: Gauge<TargetLabels>;
  private readonly recoveryRemaining: Gauge<TargetLabels>;
  private readonly recoveryEvicted: Gauge<TargetLabels>;
  private readonly locks: Gauge<TargetLabels>;
  private readonly resources: Gauge<TargetLabels>;
  /** Lustre's own running count, exported as read (it restarts from 0 when the target is mounted again). */
  private readonly lockTimeouts: Counter<TargetLabels>;
  private readonly brw: Readonly<Record<BrwHistogramKind, CumulativeHistogram>>;
  private readonly serviceRequests: Counter<'service'>;
  private readonly serviceWait: Counter<'service'>;
  private readonly serviceQueueDepth: Counter<'service'>;
  private readonly serviceActive: Counter<'service'>;
  private readonly serviceThreadGauges: Readonly<Record<ThreadFile, Gauge<'service'>>>;
  private readonly osc: Readonly<Record<OscHistogramKind, CumulativeHistogram>>;
  private readonly oscActive: Gauge<'fs' | 'operation'>;
  private readonly oscPending: Gauge<'fs' | 'operation'>;
  private readonly oscImports: Gauge<'fs' | 'state'>;
  private readonly errors: Counter<'reason'>;
  private readonly errorTotals = new Map<HealthErrorReason, number>();

  constructor(registry: MetricRegistry) {
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
    this.locks = gauge('jobio_lustre_target_ldlm_locks', "Locks granted in the target's lock manager namespace (lock_count).", labels);
    this.resources = gauge('jobio_lustre_target_ldlm_resources', "Resources (objects with locks) in the target's lock manager namespace (resource_count).", labels);
    this.lockTimeouts = counter(
      'jobio_lustre_target_ldlm_lock_timeouts_total',
      "Lock callbacks that timed out in the target's namespace, the client evicted (lock_timeouts; from 0 at the target's mount).",
      labels,
    );
    const brw = Object.entries(BRW_HISTOGRAMS).map(([kind, [name, help, bounds, scale]]) => [kind, new CumulativeHistogram(name, help, bounds, scale).register(registry)]);
    this.brw = Object.fromEntries(brw) as Record<BrwHistogramKind, CumulativeHistogram>;
    const service = ['service'] as const;
    this.serviceRequests = counter('jobio_lustre_service_requests_total', "Requests the service handled (samples of req_waittime in its stats; Lustre's count, from 0 at module load).", service);
    this.serviceWait = counter(
      'jobio_lustre_service_request_wait_seconds_total',
      "Time requests waited in the service's queue before a thread took them (sum of req_waittime), in seconds: over requests_total, the mean wait.",
      service,
    );
    this.serviceQueueDepth = counter(
      'jobio_lustre_service_request_queue_depth_total',
      'Requests already queued when each request arrived, summed over the requests (sum of req_qdepth): over requests_total, the mean queue depth a request found.',
      service,
    );
    this.serviceActive = counter(
      'jobio_lustre_service_request_active_total',
      'Requests being handled when each request arrived, summed over the requests (sum of req_active): over requests_total, the mean concurrency a request found.',
      service,
    );
    this.serviceThreadGauges = {
      threads_started: gauge('jobio_lustre_service_threads', 'Threads the service has started (threads_started).', service),
      threads_max: gauge('jobio_lustre_service_threads_max', 'Threads the service may start at most (threads_max).', service),
      threads_min: gauge('jobio_lustre_service_threads_min', 'Threads the service keeps started at least (threads_min).', service),
    };
    const osc = Object.entries(OSC_HISTOGRAMS).map(([kind, [name, help, bounds]]) => [kind, new CumulativeHistogram(name, help, bounds).register(registry)]);
    this.osc = Object.fromEntries(osc) as Record<OscHistogramKind, CumulativeHistogram>;
    const fsOperation = ['fs', 'operation'] as const;
    this.oscActive = gauge('jobio_lustre_osc_active_rpcs', "Read or write RPCs this client has in flight now to the file system's OSTs (osc rpc_stats, summed over the OSCs).", fsOperation);
    this.oscPending = gauge('jobio_lustre_osc_pending_pages', "Pages this client has waiting to be read or written to the file system's OSTs (osc rpc_stats, summed over the OSCs).", fsOperation);
    this.oscImports = gauge(
      'jobio_lustre_osc_imports',
      "This client's OSCs of the file system whose connection (import) to their OST is in the state (osc state current_state): FULL is connected, IDLE idle-disconnected; DISCONN, CONNECTING, EVICTED and the recovery states mean I/O to that OST waits.",
      ['fs', 'state'] as const,
    );
    this.errors = counter(
      'jobio_lustre_health_errors_total',
      'Capacity, health_check, recovery_status, ldlm, brw_stats, service and osc values skipped: reason="read" (the file could not be read) or "parse" (no value of the known shape; one per line in brw_stats, service stats and osc rpc_stats).',
      ['reason'] as const,
    );
  }

  clear(): void {
    for (const m of [
      ...Object.values(this.capacity),
      this.recoveryStatus,
      this.recoveryCompleted,
      this.recoveryRecoverable,
      this.recoveryRemaining,
      this.recoveryEvicted,
      this.locks,
      this.resources,
      this.lockTimeouts,
      this.errors,
      ...Object.values(this.brw),
      this.serviceRequests,
      this.serviceWait,
      this.serviceQueueDepth,
      this.serviceActive,
      ...Object.values(this.serviceThreadGauges),
      ...Object.values(this.osc),
      this.oscActive,
      this.oscPending,
      this.oscImports,
    ])
      m.reset();
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

  ldlmValue(target: string, file: LdlmFile, value: bigint): void {
    const labels = { fs: targetFs(target), target };
    if (file === 'lock_count') this.locks.set(labels, Number(value));
    else if (file === 'resource_count') this.resources.set(labels, Number(value));
    else this.lockTimeouts.inc(labels, Number(value));
  }

  /** One target's brw_stats: each histogram it printed, read and write apart. */
  brwStats(target: string, stats: BrwStats): void {
    for (const [kind, rows] of stats.histograms) {
      for (const operation of ['read', 'write'] as const)
        this.brw[kind].set(
          { fs: targetFs(target), target, operation },
          rows.map((r) => ({ value: r.value, count: r[operation] })),
        );
    }
  }

  serviceStats(service: string, stats: ServiceStats): void {
    this.serviceRequests.inc({ service }, stats.requests);
    this.serviceWait.inc({ service }, stats.waitSeconds);
    this.serviceQueueDepth.inc({ service }, stats.queueDepthSum);
    this.serviceActive.inc({ service }, stats.activeSum);
  }

  serviceThreads(service: string, file: ThreadFile, value: bigint): void {
    this.serviceThreadGauges[file].set({ service }, Number(value));
  }

  /** A client's OSCs, summed per file system: rpc_stats histograms and gauges, and how many are in each import state. */
  oscs(rpcs: readonly { target: string; stats: OscRpcStats }[], states: readonly { target: string; state: ImportState }[]): void {
    const byFs = new Map<string, OscRpcStats[]>();
    for (const { target, stats } of rpcs) byFs.set(targetFs(target), [...(byFs.get(targetFs(target)) ?? []), stats]);
    for (const [fs, all] of byFs) {
      for (const operation of ['read', 'write'] as const satisfies readonly Direction[]) {
        for (const kind of Object.keys(OSC_HISTOGRAMS) as OscHistogramKind[]) {
          const printed = all.filter((s) => s.histograms.has(kind));
          if (printed.length > 0)
            this.osc[kind].set(
              { fs, operation },
              printed.flatMap((s) => (s.histograms.get(kind) ?? []).map((r) => ({ value: r.value, count: r[operation] }))),
            );
        }
        for (const s of all) {
          const active = s.active[operation];
          const pending = s.pending[operation];
          if (active !== undefined) this.oscActive.inc({ fs, operation }, active);
          if (pending !== undefined) this.oscPending.inc({ fs, operation }, pending);
        }
      }
    }
    const counts = new Map<string, Map<ImportState, number>>();
    for (const { target, state } of states) {
      const fs = targetFs(target);
      const perState = counts.get(fs) ?? new Map(IMPORT_STATES.map((s) => [s, 0]));
      perState.set(state, (perState.get(state) ?? 0) + 1);
      counts.set(fs, perState);
    }
    for (const [fs, perState] of counts) for (const [state, n] of perState) this.oscImports.set({ fs, state }, n);
  }

  health(healthy: boolean): void {
    this.healthy.show(healthy ? 1 : 0);
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
