// What `jobio top` tabulates: the increase of each counter series over the interval, whatever the
// source (Prometheus increase() or two exporter scrapes), tagged by what it measures.
export type Measure = 'write' | 'read' | 'reqs';

export interface Increment {
  readonly measure: Measure;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The counter families of each mode, by measure. */
export const FAMILIES = {
  job: { write: 'jobio_lustre_jobstats_write_bytes_total', read: 'jobio_lustre_jobstats_read_bytes_total', reqs: 'jobio_lustre_jobstats_operations_total' },
  client: { write: 'jobio_lustre_export_write_bytes_total', read: 'jobio_lustre_export_read_bytes_total', reqs: 'jobio_lustre_export_operations_total' },
} as const;

export type TopMode = keyof typeof FAMILIES;

/** The labels a mode groups by (the rest, e.g. operation, instance, are summed). */
export const GROUP_LABELS: Record<TopMode, readonly string[]> = { job: ['jobid', 'user', 'target'], client: ['client', 'target'] };

/**
 * Operations that are not requests of the workload and stay out of REQS. Per client, as lltop does:
 * `ping` is the client's keep-alive, sent whether or not anything runs, so an idle node would
 * otherwise look busy. Job stats have no pings.
 */
export const NOT_REQUESTS: Record<TopMode, readonly string[]> = { job: [], client: ['ping'] };

/** What a series of `name` with `labels` measures in `mode`, or undefined when it is not tabulated. */
export function measureOf(mode: TopMode, name: string, labels: Readonly<Record<string, string>> = {}): Measure | undefined {
  const f = FAMILIES[mode];
  if (name === f.reqs) return NOT_REQUESTS[mode].includes(labels.operation ?? '') ? undefined : 'reqs';
  return name === f.write ? 'write' : name === f.read ? 'read' : undefined;
}

/** The collector each mode reads, for the hint when a source has none of its series. */
export const SOURCE_COLLECTOR: Record<TopMode, string> = { job: 'lustre_jobstats', client: 'lustre_exports' };

/** Why an empty table may not mean an idle file system: the source has no series of the mode at all. */
export function noSeriesHint(mode: TopMode, where: string): string {
  return `${where} has no ${FAMILIES[mode].reqs} series at all: the table stays empty until it has some (the ${SOURCE_COLLECTOR[mode]} collector on the Lustre servers' exporters${where.startsWith('Prometheus') ? ', scraped by this Prometheus' : ''})`;
}
