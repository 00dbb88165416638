// The client's view of a job in `jobio report`: what the Lustre client (llite stats) of the job's nodes
// moved while the job ran there (the exporter's jobio_lustre_client_* series, credited to the node's
// job per window), per mount, and the profiler's coverage of it: the bytes the profiler counted on the
// same mount over the client's. The client counts every process of the node (programs the profiler
// cannot follow, mmap, asynchronous I/O), so a coverage well below 1 says the application's view
// misses part of the job's I/O; above 1 the profiler counted bytes the client cache served.
import { instantQuery, type PrometheusQueryOptions } from '../top/prometheus-source.js';
import type { ReportClientJson, ReportClientMountJson } from './report-schema.js';

type Vector = readonly { metric: Readonly<Record<string, string>>; value: readonly [number, string] }[];

/** The counters of the job's client series, each at its last sample in the window, summed over the nodes. */
export interface ClientVectors {
  /** by fs, mount */
  readonly readBytes: Vector;
  readonly writeBytes: Vector;
  /** by fs, mount, operation */
  readonly operations: Vector;
  /** the profiler's bytes by mount (read and written) */
  readonly profilerBytes: Vector;
}

const value = (r: { value: readonly [number, string] }): number => Number(r.value[1]);
const ratio = (x: number): number => Math.round(x * 1e6) / 1e6;

/** The client view of the vectors; undefined when the job has no client series. */
export function clientView(v: ClientVectors): ReportClientJson | undefined {
  const mounts = new Map<string, { fs: string; mount: string; read: number; write: number; ops: Record<string, number> }>();
  const at = (l: Readonly<Record<string, string>>) => {
    const fs = l['fs'] ?? '';
    const mount = l['mount'] ?? '';
    const key = `${fs}\0${mount}`;
    let m = mounts.get(key);
    if (m === undefined) mounts.set(key, (m = { fs, mount, read: 0, write: 0, ops: {} }));
    return m;
  };
  for (const r of v.readBytes) at(r.metric).read += value(r);
  for (const r of v.writeBytes) at(r.metric).write += value(r);
  for (const r of v.operations) if (value(r) > 0) at(r.metric).ops[r.metric['operation'] ?? ''] = value(r);
  if (mounts.size === 0) return undefined;
  const profiled = new Map<string, number>();
  for (const r of v.profilerBytes) profiled.set(r.metric['mount'] ?? '', (profiled.get(r.metric['mount'] ?? '') ?? 0) + value(r));

  const rows: ReportClientMountJson[] = [...mounts.values()]
    .map((m) => {
      const bytes = m.read + m.write;
      const profiler = profiled.get(m.mount) ?? 0;
      const operations_by_kind = Object.fromEntries(Object.entries(m.ops).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
      return {
        fs: m.fs,
        mount: m.mount,
        read_bytes: m.read,
        write_bytes: m.write,
        operations: Object.values(m.ops).reduce((a, n) => a + n, 0),
        operations_by_kind,
        profiler_bytes: profiler,
        coverage: bytes > 0 ? ratio(profiler / bytes) : null,
      };
    })
    .sort((a, b) => b.read_bytes + b.write_bytes - (a.read_bytes + a.write_bytes) || a.mount.localeCompare(b.mount));
  const read = rows.reduce((a, m) => a + m.read_bytes, 0);
  const write = rows.reduce((a, m) => a + m.write_bytes, 0);
  const profiler = rows.reduce((a, m) => a + m.profiler_bytes, 0);
  return { read_bytes: read, write_bytes: write, profiler_bytes: profiler, coverage: read + write > 0 ? ratio(profiler / (read + write)) : null, mounts: rows };
}

/** The job's client view from Prometheus (JOB: the `jobid="…"` matcher, already escaped; RANGE: the look-back window). */
export async function clientFromPrometheus(q: PrometheusQueryOptions, job: string, range: string): Promise<ReportClientJson | undefined> {
  const last = (family: string, by: string): string => `sum by (${by}) (last_over_time(${family}{${job}}[${range}]))`;
  const [readBytes, writeBytes, operations, profilerRead, profilerWrite] = await Promise.all([
    instantQuery(q, last('jobio_lustre_client_read_bytes_total', 'fs, mount')),
    instantQuery(q, last('jobio_lustre_client_write_bytes_total', 'fs, mount')),
    instantQuery(q, last('jobio_lustre_client_operations_total', 'fs, mount, operation')),
    instantQuery(q, last('jobio_profiler_read_bytes_total', 'mount')),
    instantQuery(q, last('jobio_profiler_write_bytes_total', 'mount')),
  ]);
  return clientView({ readBytes, writeBytes, operations, profilerBytes: [...profilerRead, ...profilerWrite] });
}
