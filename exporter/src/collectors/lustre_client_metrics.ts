// The metrics of the lustre_client collector: the one Lustre refill (lustre/refill.ts) hands them the
// mounts' views of the settled accumulator behind a ClientStatsBook, and the families read those
// views when the scrape renders them. Read and write bytes are exported for every series,
// at 0 when the mount never moved them (the 2.14 capture has no read_bytes line at all), so the
// coverage rules can add them up.
import type { Labels } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { ClientStatsBook, ClientTargetView } from '../lustre/client-book.js';
import type { FieldKind } from '../lustre/export-fields.js';
import { SourceMetrics } from './lustre_targets_metrics.js';
import { perTargetFamily, TargetViewsWriter } from './lustre_target_families.js';
import { combinedFamily } from '../scrape/combined-family.js';
import { READ_ERROR_REASONS } from '../lustre/error-reasons.js';

/** Where a mount's series are: its file system and mount point (several places may share them). */
const placeOf = (t: ClientTargetView): { fs: string; mount: string } => ({ fs: t.place.fs, mount: t.place.mount });

/** The families read the mounts' views of the last refill; the source metrics count mounts beyond max-targets (not read), the cap and unreadable llite directories. */
export class LustreClientMetrics extends TargetViewsWriter<ClientStatsBook> {
  constructor(registry: MetricRegistry, maxTargets = Number.POSITIVE_INFINITY) {
    super(new SourceMetrics(registry, 'jobio_lustre_client', 'lustre_client', maxTargets));
    const views = this.shown;
    /** Both byte counters of a series exist from its first sample on (0 when the mount never moved them). */
    const bytes = (kind: FieldKind) => (add: (labels: Labels, value: number) => void) => {
      for (const t of views()) {
        const place = placeOf(t);
        let jobid: string | undefined;
        let sum = 0;
        const done = (): void => {
          if (jobid !== undefined) add({ ...place, jobid }, sum);
        };
        t.samples.forEach((series, field, value) => {
          if (series !== jobid) {
            done();
            jobid = series;
            sum = 0;
          }
          if (field.kind === kind) sum += value;
        });
        done();
      }
    };
    const perOperation = (kind: FieldKind, scale: number) => (add: (labels: Labels, value: number) => void) => {
      for (const t of views()) t.samples.forEach((jobid, field, value) => add({ ...placeOf(t), jobid, operation: field.operation }, value / scale), kind);
    };
    for (const family of [
      combinedFamily(
        'jobio_lustre_client_read_bytes_total',
        "Bytes read through this node's Lustre client (sum of read_bytes in llite stats), credited to the node's job, in bytes.",
        'counter',
        bytes('read_bytes'),
      ),
      combinedFamily(
        'jobio_lustre_client_write_bytes_total',
        "Bytes written through this node's Lustre client (sum of write_bytes in llite stats), credited to the node's job, in bytes.",
        'counter',
        bytes('write_bytes'),
      ),
      combinedFamily(
        'jobio_lustre_client_operations_total',
        "Operations of this node's Lustre client per llite counter (samples in llite stats), credited to the node's job.",
        'counter',
        perOperation('operations', 1),
      ),
      combinedFamily(
        'jobio_lustre_client_operation_seconds_total',
        "Time in operations of this node's Lustre client (latency sum of [usecs] llite counters, Lustre 2.12+), in seconds.",
        'counter',
        perOperation('operation_seconds', 1e6),
      ),
      combinedFamily('jobio_lustre_client_parse_errors_total', 'llite stats lines that fit no known shape and were skipped.', 'counter', (add) => {
        for (const t of views()) add(placeOf(t), t.parseErrorsTotal);
      }),
      combinedFamily(
        'jobio_lustre_client_read_errors_total',
        'llite stats files that exist but could not be read, by reason: not_regular_file (a FIFO, device or directory: refused without blocking), too_large (over 64 MiB), unreadable (open or read failed); the series are kept as they were.',
        'counter',
        (add) => {
          for (const t of views()) for (const reason of READ_ERROR_REASONS) add({ ...placeOf(t), reason }, t.readErrors[reason]);
        },
      ),
      // the llite instance names the place apart: one series per mount read this scrape
      perTargetFamily('jobio_lustre_client_mount_info', 'The llite instance read for each Lustre client mount (1); a new instance means the file system was remounted.', 'gauge', views, (t, emit) =>
        t.read ? emit({ ...placeOf(t), llite: t.place.instance }, 1) : undefined,
      ),
    ])
      registry.register(family);
  }
}
