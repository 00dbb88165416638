// The metrics of the lustre_health collector (names fixed in docs/metrics.md): what the last reading
// held, handed out when the scrape renders the families, plus a running count of the values that could
// not be read or parsed.
import type { Labels, MetricFamily } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { combinedFamily, type Combine } from '../scrape/combined-family.js';
import { ShownWhilePresent } from './lustre_targets_metrics.js';
import { cumulativeHistogram, type CountRow } from './cumulative_histogram.js';
import type { BrwHistogramKind, BrwStats } from '../parsers/lustre-brw-stats.js';
import { RECOVERY_STATES, targetFs, type CapacityFile, type LdlmFile, type RecoveryStatus, type ThreadFile } from '../parsers/lustre-health.js';
import type { ServiceStats } from '../parsers/lustre-service-stats.js';
import { IMPORT_STATES, type Direction, type ImportState, type OscHistogramKind, type OscRpcStats } from '../parsers/lustre-osc.js';

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

/** What one reading of the host's health files held, each kind in the order its files were read. */
export interface HealthReading {
  healthy?: boolean;
  readonly capacity: { readonly target: string; readonly file: CapacityFile; readonly value: bigint }[];
  readonly recovery: { readonly target: string; readonly status: RecoveryStatus }[];
  readonly ldlm: { readonly target: string; readonly file: LdlmFile; readonly value: bigint }[];
  readonly brw: { readonly target: string; readonly stats: BrwStats }[];
  readonly services: { readonly service: string; readonly stats: ServiceStats }[];
  readonly threads: { readonly service: string; readonly file: ThreadFile; readonly value: bigint }[];
  /** A client's OSCs, exported summed per file system. */
  readonly oscRpcs: { readonly target: string; readonly stats: OscRpcStats }[];
  readonly oscStates: { readonly target: string; readonly state: ImportState }[];
}

export function emptyHealthReading(): HealthReading {
  return { capacity: [], recovery: [], ldlm: [], brw: [], services: [], threads: [], oscRpcs: [], oscStates: [] };
}

/** The last reading as the families read it: the OSCs grouped per file system, the error totals as they were. */
interface Shown {
  readonly reading: HealthReading;
  readonly oscRpcs: ReadonlyMap<string, readonly OscRpcStats[]>;
  readonly oscImports: ReadonlyMap<string, ReadonlyMap<ImportState, number>>;
  readonly errors: readonly [HealthErrorReason, number][];
}

export class LustreHealthMetrics {
  /** Label-less: shown only while health_check was read (a label-less series has no "no value"). */
  private readonly healthy: ShownWhilePresent;
  private readonly errorTotals = new Map<HealthErrorReason, number>();
  /** What the last reading held; undefined while there is none (no Lustre target here): no series at all. */
  private shown: Shown | undefined;

  constructor(registry: MetricRegistry) {
    const reading = (): HealthReading => this.shown?.reading ?? emptyHealthReading();
    /** A family of the reading's values; a label set read twice (two osd types of one target) is one series, as before. */
    const family = (
      name: string,
      help: string,
      type: 'counter' | 'gauge',
      fill: (add: (labels: Labels, value: number) => void, r: HealthReading) => void,
      combine: Combine = type === 'gauge' ? 'last' : 'sum',
    ) => registry.register(combinedFamily(name, help, type, (add) => fill(add, reading()), combine));
    const targetLabels = (target: string): Labels => ({ fs: targetFs(target), target });

    const capacity = (file: CapacityFile, name: string, help: string): MetricFamily =>
      family(name, help, 'gauge', (add, r) => {
        // Lustre prints kilobytes; a float64 holds bytes exactly up to 8 PiB per target.
        for (const c of r.capacity) if (c.file === file) add(targetLabels(c.target), Number(file.startsWith('kbytes') ? c.value * 1024n : c.value));
      });
    capacity('kbytestotal', 'jobio_lustre_target_size_bytes', 'Size of the target (kbytestotal of its osd), in bytes.');
    capacity('kbytesfree', 'jobio_lustre_target_free_bytes', 'Free space on the target, reserved blocks included (kbytesfree of its osd), in bytes.');
    capacity('kbytesavail', 'jobio_lustre_target_avail_bytes', 'Space on the target available to clients (kbytesavail of its osd), in bytes.');
    capacity('filestotal', 'jobio_lustre_target_files', 'Inodes (objects on an OST) of the target (filestotal of its osd).');
    capacity('filesfree', 'jobio_lustre_target_files_free', 'Free inodes (objects on an OST) of the target (filesfree of its osd).');
    this.healthy = ShownWhilePresent.gauge(
      registry,
      'jobio_lustre_health_check_healthy',
      "1 when this server's Lustre health_check says healthy, 0 when it says NOT HEALTHY, a device reported unhealthy or an LBUG.",
    );

    family('jobio_lustre_target_recovery_status', 'Recovery state of the target (recovery_status): 1 for the current status, 0 for the others.', 'gauge', (add, r) => {
      for (const { target, status } of r.recovery) for (const state of RECOVERY_STATES) add({ ...targetLabels(target), status: state }, state === status.status ? 1 : 0);
    });
    const recovery = (name: string, help: string, value: (s: RecoveryStatus) => number | undefined): MetricFamily =>
      family(name, help, 'gauge', (add, r) => {
        for (const { target, status } of r.recovery) {
          const v = value(status);
          if (v !== undefined) add(targetLabels(target), v);
        }
      });
    recovery('jobio_lustre_target_recovery_completed_clients', 'Clients that completed recovery (completed_clients of recovery_status).', (s) => s.completedClients);
    recovery('jobio_lustre_target_recovery_clients', 'Clients the target expects back in recovery (the total of completed_clients or connected_clients).', (s) => s.recoverableClients);
    recovery('jobio_lustre_target_recovery_time_remaining_seconds', 'Seconds left before the recovery window closes, while RECOVERING (time_remaining).', (s) => s.timeRemainingSeconds);
    recovery('jobio_lustre_target_recovery_evicted_clients', 'Clients evicted because they did not come back in time, while RECOVERING (evicted_clients).', (s) => s.evictedClients);

    const ldlm = (file: LdlmFile, name: string, help: string, type: 'counter' | 'gauge'): MetricFamily =>
      family(name, help, type, (add, r) => {
        for (const l of r.ldlm) if (l.file === file) add(targetLabels(l.target), Number(l.value));
      });
    ldlm('lock_count', 'jobio_lustre_target_ldlm_locks', "Locks granted in the target's lock manager namespace (lock_count).", 'gauge');
    ldlm('resource_count', 'jobio_lustre_target_ldlm_resources', "Resources (objects with locks) in the target's lock manager namespace (resource_count).", 'gauge');
    // Lustre's own running count, exported as read (it restarts from 0 when the target is mounted again).
    ldlm(
      'lock_timeouts',
      'jobio_lustre_target_ldlm_lock_timeouts_total',
      "Lock callbacks that timed out in the target's namespace, the client evicted (lock_timeouts; from 0 at the target's mount).",
      'counter',
    );

    for (const [kind, [name, help, bounds, scale]] of Object.entries(BRW_HISTOGRAMS) as [BrwHistogramKind, (typeof BRW_HISTOGRAMS)[BrwHistogramKind]][]) {
      const fill = (add: (labels: Labels, rows: readonly CountRow[]) => void): void => {
        // One histogram set per target and direction, for each histogram its brw_stats printed.
        for (const { target, stats } of reading().brw) {
          const rows = stats.histograms.get(kind);
          if (rows === undefined) continue;
          for (const operation of ['read', 'write'] as const)
            add(
              { ...targetLabels(target), operation },
              rows.map((row) => ({ value: row.value, count: row[operation] })),
            );
        }
      };
      registry.register(cumulativeHistogram(name, help, bounds, fill, scale));
    }

    const service = (name: string, help: string, value: (s: ServiceStats) => number): MetricFamily =>
      family(name, help, 'counter', (add, r) => {
        for (const s of r.services) add({ service: s.service }, value(s.stats));
      });
    service('jobio_lustre_service_requests_total', "Requests the service handled (samples of req_waittime in its stats; Lustre's count, from 0 at module load).", (s) => s.requests);
    service(
      'jobio_lustre_service_request_wait_seconds_total',
      "Time requests waited in the service's queue before a thread took them (sum of req_waittime), in seconds: over requests_total, the mean wait.",
      (s) => s.waitSeconds,
    );
    service(
      'jobio_lustre_service_request_queue_depth_total',
      'Requests already queued when each request arrived, summed over the requests (sum of req_qdepth): over requests_total, the mean queue depth a request found.',
      (s) => s.queueDepthSum,
    );
    service(
      'jobio_lustre_service_request_active_total',
      'Requests being handled when each request arrived, summed over the requests (sum of req_active): over requests_total, the mean concurrency a request found.',
      (s) => s.activeSum,
    );
    const threads = (file: ThreadFile, name: string, help: string): MetricFamily =>
      family(name, help, 'gauge', (add, r) => {
        for (const t of r.threads) if (t.file === file) add({ service: t.service }, Number(t.value));
      });
    threads('threads_started', 'jobio_lustre_service_threads', 'Threads the service has started (threads_started).');
    threads('threads_max', 'jobio_lustre_service_threads_max', 'Threads the service may start at most (threads_max).');
    threads('threads_min', 'jobio_lustre_service_threads_min', 'Threads the service keeps started at least (threads_min).');

    const oscRpcs = (): ReadonlyMap<string, readonly OscRpcStats[]> => this.shown?.oscRpcs ?? new Map();
    for (const [kind, [name, help, bounds]] of Object.entries(OSC_HISTOGRAMS) as [OscHistogramKind, (typeof OSC_HISTOGRAMS)[OscHistogramKind]][]) {
      const fill = (add: (labels: Labels, rows: readonly CountRow[]) => void): void => {
        for (const [fs, all] of oscRpcs())
          for (const operation of ['read', 'write'] as const satisfies readonly Direction[]) {
            const printed = all.filter((s) => s.histograms.has(kind));
            if (printed.length > 0)
              add(
                { fs, operation },
                printed.flatMap((s) => (s.histograms.get(kind) ?? []).map((row) => ({ value: row.value, count: row[operation] }))),
              );
          }
      };
      registry.register(cumulativeHistogram(name, help, bounds, fill));
    }
    // Summed over the file system's OSCs (each OSC's figure added in).
    const perFs = (name: string, help: string, value: (s: OscRpcStats, operation: Direction) => number | undefined): MetricFamily =>
      family(
        name,
        help,
        'gauge',
        (add) => {
          for (const [fs, all] of oscRpcs())
            for (const operation of ['read', 'write'] as const)
              for (const s of all) {
                const v = value(s, operation);
                if (v !== undefined) add({ fs, operation }, v);
              }
        },
        'sum',
      );
    perFs('jobio_lustre_osc_active_rpcs', "Read or write RPCs this client has in flight now to the file system's OSTs (osc rpc_stats, summed over the OSCs).", (s, op) => s.active[op]);
    perFs('jobio_lustre_osc_pending_pages', "Pages this client has waiting to be read or written to the file system's OSTs (osc rpc_stats, summed over the OSCs).", (s, op) => s.pending[op]);
    family(
      'jobio_lustre_osc_imports',
      "This client's OSCs of the file system whose connection (import) to their OST is in the state (osc state current_state): FULL is connected, IDLE idle-disconnected; DISCONN, CONNECTING, EVICTED and the recovery states mean I/O to that OST waits.",
      'gauge',
      (add) => {
        for (const [fs, perState] of this.shown?.oscImports ?? []) for (const [state, n] of perState) add({ fs, state }, n);
      },
    );
    family(
      'jobio_lustre_health_errors_total',
      'Capacity, health_check, recovery_status, ldlm, brw_stats, service and osc values skipped: reason="read" (the file could not be read) or "parse" (no value of the known shape; one per line in brw_stats, service stats and osc rpc_stats).',
      'counter',
      (add) => {
        for (const [reason, n] of this.shown?.errors ?? []) add({ reason }, n);
      },
    );
  }

  /** No Lustre target here: no series at all (the error totals are kept for when one appears). */
  clear(): void {
    this.shown = undefined;
    this.healthy.clear();
  }

  count(reason: HealthErrorReason, n = 1): void {
    this.errorTotals.set(reason, (this.errorTotals.get(reason) ?? 0) + n);
  }

  /** What the families show from now on: this reading, and the error totals as they are now (both reasons, from 0). */
  show(reading: HealthReading): void {
    const oscRpcs = new Map<string, OscRpcStats[]>();
    for (const { target, stats } of reading.oscRpcs) oscRpcs.set(targetFs(target), [...(oscRpcs.get(targetFs(target)) ?? []), stats]);
    const oscImports = new Map<string, Map<ImportState, number>>();
    for (const { target, state } of reading.oscStates) {
      const fs = targetFs(target);
      const perState = oscImports.get(fs) ?? new Map(IMPORT_STATES.map((s) => [s, 0]));
      perState.set(state, (perState.get(state) ?? 0) + 1);
      oscImports.set(fs, perState);
    }
    const errors = (['read', 'parse'] as const).map((reason): [HealthErrorReason, number] => [reason, this.errorTotals.get(reason) ?? 0]);
    this.shown = { reading, oscRpcs, oscImports, errors };
    this.healthy.clear();
    if (reading.healthy !== undefined) this.healthy.show(reading.healthy ? 1 : 0);
  }
}
