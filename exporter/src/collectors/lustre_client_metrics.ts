// The metrics of the lustre_client collector, written by the one Lustre refill (lustre/refill.ts) from
// the settled accumulator behind a ClientStatsBook. Read and write bytes are exported for every series,
// at 0 when the mount never moved them (the 2.14 capture has no read_bytes line at all), so the
// coverage rules can add them up.
import type { Counter, Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { ClientStatsBook, ClientTargetView } from '../lustre/client-book.js';
import type { ExportField } from '../lustre/export-fields.js';
import type { LustreWriter } from '../lustre/refill.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { metricsIn } from '../scrape/metric-factory.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

type Place = 'fs' | 'mount';

export class LustreClientMetrics implements LustreWriter<ClientStatsBook> {
  private readonly readBytes: Counter<Place | 'jobid'>;
  private readonly writeBytes: Counter<Place | 'jobid'>;
  private readonly operations: Counter<Place | 'jobid' | 'operation'>;
  private readonly operationSeconds: Counter<Place | 'jobid' | 'operation'>;
  private readonly parseErrors: Counter<Place>;
  private readonly readErrors: Counter<Place | 'reason'>;
  private readonly mountInfo: Gauge<Place | 'llite'>;
  /** Mounts beyond max-targets (not read: counted), the cap, unreadable llite directories. */
  private readonly source: SourceMetrics;

  constructor(registry: MetricRegistry, maxTargets = Number.POSITIVE_INFINITY) {
    const { counter, gauge } = metricsIn(registry);
    this.source = new SourceMetrics(registry, 'jobio_lustre_client', 'lustre_client', maxTargets);
    this.readBytes = counter('jobio_lustre_client_read_bytes_total', "Bytes read through this node's Lustre client (sum of read_bytes in llite stats), credited to the node's job, in bytes.", [
      'fs',
      'mount',
      'jobid',
    ]);
    this.writeBytes = counter('jobio_lustre_client_write_bytes_total', "Bytes written through this node's Lustre client (sum of write_bytes in llite stats), credited to the node's job, in bytes.", [
      'fs',
      'mount',
      'jobid',
    ]);
    this.operations = counter('jobio_lustre_client_operations_total', "Operations of this node's Lustre client per llite counter (samples in llite stats), credited to the node's job.", [
      'fs',
      'mount',
      'jobid',
      'operation',
    ]);
    this.operationSeconds = counter(
      'jobio_lustre_client_operation_seconds_total',
      "Time in operations of this node's Lustre client (latency sum of [usecs] llite counters, Lustre 2.12+), in seconds.",
      ['fs', 'mount', 'jobid', 'operation'],
    );
    this.parseErrors = counter('jobio_lustre_client_parse_errors_total', 'llite stats lines that fit no known shape and were skipped.', ['fs', 'mount']);
    this.readErrors = counter(
      'jobio_lustre_client_read_errors_total',
      'llite stats files that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
      ['fs', 'mount', 'reason'],
    );
    this.mountInfo = gauge('jobio_lustre_client_mount_info', 'The llite instance read for each Lustre client mount (1); a new instance means the file system was remounted.', ['fs', 'mount', 'llite']);
  }

  clear(): void {
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.operationSeconds, this.parseErrors, this.readErrors, this.mountInfo]) m.reset();
    this.source.clear();
  }

  whole(book: ClientStatsBook): void {
    this.source.set(book);
  }

  target(t: ClientTargetView): void {
    const { fs, mount, instance } = t.place;
    this.parseErrors.inc({ fs, mount }, t.parseErrorsTotal);
    for (const reason of READ_ERROR_REASONS) this.readErrors.inc({ fs, mount, reason }, t.readErrors[reason]);
    if (t.read) this.mountInfo.set({ fs, mount, llite: instance }, 1);
  }

  sample(t: ClientTargetView, jobid: string, { kind, operation }: ExportField, value: number): void {
    const { fs, mount } = t.place;
    // Both byte counters of the series exist from its first sample on (inc by 0 creates them).
    this.readBytes.inc({ fs, mount, jobid }, kind === 'read_bytes' ? value : 0);
    this.writeBytes.inc({ fs, mount, jobid }, kind === 'write_bytes' ? value : 0);
    if (kind === 'operations') this.operations.inc({ fs, mount, jobid, operation }, value);
    else if (kind === 'operation_seconds') this.operationSeconds.inc({ fs, mount, jobid, operation }, value / 1e6);
  }
}
