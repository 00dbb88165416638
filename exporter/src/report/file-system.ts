// The file system's view of a job in `jobio report`: what Lustre's job_stats counted for it on each
// MDT and OST (the exporter's jobio_lustre_jobstats_* series, jobid label = the scheduler's job id),
// how many OSTs carried its data, and its share of each target's load in its busiest interval. The
// servers count every request whatever the client did, so this view needs no profiler; a job that
// takes most of a metadata target's requests at a high rate slows every other job on the file system
// and is a finding even when its own run time does not show it.
import type { ProgramRef } from '../profiler/diagnosis-schema.js';
import { instantQuery, samplesQuery, type PrometheusQueryOptions } from '../top/prometheus-source.js';
import { promString } from '../top/promql.js';
import { count, METADATA_RATE_HIGH, METADATA_RATE_LOW, METADATA_RATE_MEDIUM, pct } from './findings.js';
import type { ReportDensityJson, ReportFileSystemJson, ReportFindingJson, ReportRatePointJson, ReportTargetClassJson, ReportTargetJson, Severity } from './report-schema.js';

/** A job's share of an MDT's requests in its busiest interval from which it dominates the target. */
export const DOMINANT_SHARE = 0.5;

type Labels = Record<string, string>;
type Series = readonly { metric: Labels; values: readonly (readonly [number, string])[] }[];

/** One increase of a counter between two consecutive samples (a decrease is a restart: the new value is the increase). */
interface Step {
  readonly from: number;
  readonly to: number;
  readonly inc: number;
}

function steps(values: readonly (readonly [number, string])[]): Step[] {
  const out: Step[] = [];
  for (let i = 1; i < values.length; i++) {
    const [from, a] = values[i - 1] as readonly [number, string];
    const [to, b] = values[i] as readonly [number, string];
    const v0 = Number(a);
    const v1 = Number(b);
    const inc = v1 >= v0 ? v1 - v0 : v1;
    if (inc > 0 && to > from) out.push({ from, to, inc });
  }
  return out;
}

/** MDT or OST from Lustre's target name (`fs-MDT0000`, `fs-OST001f`); undefined for anything else. */
export function targetKind(target: string): 'mdt' | 'ost' | undefined {
  if (/MDT[0-9a-f]{4}$/i.test(target)) return 'mdt';
  if (/OST[0-9a-f]{4}$/i.test(target)) return 'ost';
  return undefined;
}

/** The job's series of the three job_stats families, raw samples over the look-back window. */
export interface JobStatsSamples {
  readonly operations: Series;
  readonly readBytes: Series;
  readonly writeBytes: Series;
}

/** From the sample before the job's first job_stats increase to the sample of its last ([] when none). */
export function changeSpan(s: JobStatsSamples): number[] {
  const all = [...s.operations, ...s.readBytes, ...s.writeBytes].flatMap((x) => steps(x.values));
  return all.length === 0 ? [] : [all.reduce((m, x) => Math.min(m, x.from), Infinity), all.reduce((m, x) => Math.max(m, x.to), -Infinity)];
}

/** Per target: totals and the job's busiest interval (largest rate of its measure), before the target's own load is known. */
interface TargetDraft {
  readonly target: string;
  readonly kind: 'mdt' | 'ost';
  readonly byKind: Map<string, number>;
  readBytes: number;
  writeBytes: number;
  /** The measure's increases summed per interval end (the target's series are scraped together). */
  readonly intervals: Map<number, { from: number; inc: number }>;
}

function drafts(s: JobStatsSamples): Map<string, TargetDraft> {
  const out = new Map<string, TargetDraft>();
  const draft = (target: string): TargetDraft | undefined => {
    const kind = targetKind(target);
    if (kind === undefined) return undefined;
    let d = out.get(target);
    if (d === undefined) {
      d = { target, kind, byKind: new Map(), readBytes: 0, writeBytes: 0, intervals: new Map() };
      out.set(target, d);
    }
    return d;
  };
  const measure = (d: TargetDraft, st: readonly Step[]): void => {
    for (const x of st) {
      const i = d.intervals.get(x.to);
      d.intervals.set(x.to, { from: Math.max(i?.from ?? x.from, x.from), inc: (i?.inc ?? 0) + x.inc });
    }
  };
  for (const series of s.operations) {
    const d = draft(series.metric['target'] ?? '');
    const st = steps(series.values);
    if (d === undefined || st.length === 0) continue;
    const op = series.metric['operation'] ?? '';
    d.byKind.set(op, (d.byKind.get(op) ?? 0) + st.reduce((a, x) => a + x.inc, 0));
    if (d.kind === 'mdt') measure(d, st);
  }
  for (const [family, key] of [
    [s.readBytes, 'readBytes'],
    [s.writeBytes, 'writeBytes'],
  ] as const)
    for (const series of family) {
      const d = draft(series.metric['target'] ?? '');
      const st = steps(series.values);
      if (d === undefined || st.length === 0) continue;
      d[key] += st.reduce((a, x) => a + x.inc, 0);
      if (d.kind === 'ost') measure(d, st);
    }
  return out;
}

/** The interval with the largest rate of the measure (the earliest of equals). */
function busiest(d: TargetDraft): { from: number; to: number; inc: number; rate: number } | undefined {
  let best: { from: number; to: number; inc: number; rate: number } | undefined;
  for (const [to, { from, inc }] of [...d.intervals].sort((a, b) => a[0] - b[0])) {
    const rate = inc / (to - from);
    if (best === undefined || rate > best.rate) best = { from, to, inc, rate };
  }
  return best;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;
const iso = (t: number): string => new Date(t * 1000).toISOString();

/**
 * All jobs' increase of the measure per target between two sample times: the counters at `to` minus
 * those at `from` (both instants are scrape times of the targets, so no extrapolation is involved).
 */
export type TargetLoad = (from: number, to: number, measure: 'operations' | 'bytes') => Promise<ReadonlyMap<string, number>>;

/** The view from the job's samples and the targets' load; undefined when the job has no job_stats increase at all. */
export async function fileSystemView(s: JobStatsSamples, load: TargetLoad): Promise<ReportFileSystemJson | undefined> {
  const ds = [...drafts(s).values()].filter((d) => d.byKind.size > 0 || d.readBytes > 0 || d.writeBytes > 0);
  if (ds.length === 0) return undefined;
  const peaks = new Map(ds.map((d) => [d.target, busiest(d)]));
  // one load query per distinct interval and measure (targets of one server share their scrape times)
  const wanted = new Map<string, { from: number; to: number; measure: 'operations' | 'bytes' }>();
  for (const d of ds) {
    const p = peaks.get(d.target);
    const measure = d.kind === 'mdt' ? 'operations' : 'bytes';
    if (p !== undefined) wanted.set(`${p.from} ${p.to} ${measure}`, { from: p.from, to: p.to, measure });
  }
  const loads = new Map(await Promise.all([...wanted].map(async ([k, w]) => [k, await load(w.from, w.to, w.measure)] as const)));
  const targets: ReportTargetJson[] = ds
    .sort((a, b) => (a.kind === b.kind ? a.target.localeCompare(b.target) : a.kind === 'mdt' ? -1 : 1))
    .map((d) => {
      const p = peaks.get(d.target);
      const measure = d.kind === 'mdt' ? 'operations' : 'bytes';
      const all = p === undefined ? 0 : Math.max(p.inc, loads.get(`${p.from} ${p.to} ${measure}`)?.get(d.target) ?? 0);
      const byKind = Object.fromEntries([...d.byKind].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
      return {
        target: d.target,
        kind: d.kind,
        operations: [...d.byKind.values()].reduce((a, x) => a + x, 0),
        operations_by_kind: byKind,
        read_bytes: d.readBytes,
        write_bytes: d.writeBytes,
        peak:
          p === undefined ? null : { measure, start: iso(p.from), end: iso(p.to), rate: round(p.rate, 3), target_rate: round(all / (p.to - p.from), 3), share: all > 0 ? round(p.inc / all, 6) : 0 },
      };
    });
  const classOf = (kind: 'mdt' | 'ost'): ReportTargetClassJson => {
    const ts = targets.filter((t) => t.kind === kind);
    const sum = (f: (t: ReportTargetJson) => number): number => ts.reduce((a, t) => a + f(t), 0);
    return { targets: ts.length, operations: sum((t) => t.operations), read_bytes: sum((t) => t.read_bytes), write_bytes: sum((t) => t.write_bytes) };
  };
  const metadata = new Map<string, number>();
  for (const t of targets) if (t.kind === 'mdt') for (const [op, n] of Object.entries(t.operations_by_kind)) metadata.set(op, (metadata.get(op) ?? 0) + n);
  return {
    mdt: classOf('mdt'),
    ost: classOf('ost'),
    osts_with_data: targets.filter((t) => t.kind === 'ost' && t.read_bytes + t.write_bytes > 0).length,
    metadata_operations: Object.fromEntries([...metadata].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    targets,
  };
}

/** The job's series of the job_stats families over the look-back window (the job id escaped by promString). */
export async function jobStatsSamples(q: PrometheusQueryOptions, jobid: string, range: string): Promise<JobStatsSamples> {
  const sel = `{jobid=${promString(jobid)}}[${range}]`;
  const [operations, readBytes, writeBytes] = await Promise.all([
    samplesQuery(q, `jobio_lustre_jobstats_operations_total${sel}`),
    samplesQuery(q, `jobio_lustre_jobstats_read_bytes_total${sel}`),
    samplesQuery(q, `jobio_lustre_jobstats_write_bytes_total${sel}`),
  ]);
  return { operations, readBytes, writeBytes };
}

/** The TargetLoad of a Prometheus server: every job's counters at the two instants (`@`), summed per target. */
export function prometheusTargetLoad(q: PrometheusQueryOptions): TargetLoad {
  const diff = (family: string, from: number, to: number): string => `sum by (target) (clamp_min(${family} @ ${to} - ${family} @ ${from}, 0))`;
  return async (from, to, measure) => {
    const queries =
      measure === 'operations'
        ? [diff('jobio_lustre_jobstats_operations_total', from, to)]
        : [diff('jobio_lustre_jobstats_read_bytes_total', from, to), diff('jobio_lustre_jobstats_write_bytes_total', from, to)];
    const out = new Map<string, number>();
    for (const rs of await Promise.all(queries.map((x) => instantQuery(q, x)))) for (const r of rs) out.set(r.metric['target'] ?? '', (out.get(r.metric['target'] ?? '') ?? 0) + Number(r.value[1]));
    return out;
  };
}

/** The file system's name: the target name without its `-MDT0000` part. */
const fsName = (target: string): string => target.replace(/-?(MDT|OST)[0-9a-f]{4}$/i, '') || target;

/**
 * A finding for every MDT the job dominated: at least DOMINANT_SHARE of its requests in the job's
 * busiest interval, at a rate of at least the low metadata-rate threshold (severity by that rate, as
 * the profiler's metadata load). Addressed to `program` (the program with the most metadata calls
 * when the profiler saw the job, else the job).
 */
export function targetFindings(view: ReportFileSystemJson, program: ProgramRef): ReportFindingJson[] {
  const out: ReportFindingJson[] = [];
  for (const t of view.targets) {
    const p = t.peak;
    if (t.kind !== 'mdt' || p === null || p.share < DOMINANT_SHARE || p.rate < METADATA_RATE_LOW) continue;
    const severity: Severity = p.rate >= METADATA_RATE_HIGH ? 'high' : p.rate >= METADATA_RATE_MEDIUM ? 'medium' : 'low';
    const kinds = Object.entries(t.operations_by_kind)
      .slice(0, 3)
      .map(([op, n]) => `${count(n)} ${op}`)
      .join(', ');
    out.push({
      severity,
      severity_from: 'target_load',
      class: 'red',
      reason: 'target_load',
      mount: fsName(t.target),
      target: t.target,
      program,
      calls: t.operations,
      bytes: t.read_bytes + t.write_bytes,
      time: 0,
      time_error: 0,
      share: null,
      metadata_rate: p.rate,
      seen: `${pct(p.share)} of all requests on ${t.target} (${count(p.rate)} of ${count(p.target_rate)} ops/s) from ${p.start} to ${p.end}; ${count(t.operations)} requests in all (${kinds})`,
      why: `every job of the file system shares its metadata targets; one job taking ${pct(p.share)} of an MDT's requests makes everyone's opens, stats and ls wait behind it`,
      hint: 'cut the metadata requests: open, stat and create files once and keep them (not per step or per record), write many small results into one file, keep directory listings and lookups out of loops, and spread many small files over fewer, larger ones',
    });
  }
  return out;
}

/** At most this many intervals in the rates over time (one SVG line of the page, a few KB of JSON). */
export const MAX_RATE_POINTS = 60;

/**
 * The job's rates over time per target class: its span (first to last job_stats increase) cut into
 * equal intervals, as many as its busiest series has increases (at most MAX_RATE_POINTS); each
 * increase between two samples is spread over the intervals it overlaps in proportion, so the
 * intervals add up to the job's totals whatever the targets' scrape times.
 */
export function ratesOverTime(s: JobStatsSamples): ReportRatePointJson[] {
  const span = changeSpan(s);
  if (span.length < 2) return [];
  const [t0, t1] = span as [number, number];
  const classed = (series: Series, kind: 'mdt' | 'ost'): Step[][] => series.filter((x) => targetKind(x.metric['target'] ?? '') === kind).map((x) => steps(x.values));
  const families = { mdt_operations: classed(s.operations, 'mdt'), ost_read_bytes: classed(s.readBytes, 'ost'), ost_write_bytes: classed(s.writeBytes, 'ost') };
  const n = Math.min(MAX_RATE_POINTS, Math.max(1, ...Object.values(families).flatMap((f) => f.map((x) => x.length))));
  const width = (t1 - t0) / n;
  const spread = (all: Step[][]): number[] => {
    const sums = new Array<number>(n).fill(0);
    for (const st of all)
      for (const x of st)
        for (let i = Math.max(0, Math.floor((x.from - t0) / width)); i < n && t0 + i * width < x.to; i++) {
          const overlap = Math.min(x.to, t0 + (i + 1) * width) - Math.max(x.from, t0 + i * width);
          if (overlap > 0) sums[i] = (sums[i] ?? 0) + (x.inc * overlap) / (x.to - x.from);
        }
    return sums;
  };
  const mdt = spread(families.mdt_operations);
  const read = spread(families.ost_read_bytes);
  const written = spread(families.ost_write_bytes);
  return mdt.map((m, i) => ({
    start: iso(t0 + i * width),
    end: iso(t0 + (i + 1) * width),
    seconds: round(width, 6),
    mdt_operations: round(m / width, 3),
    ost_read_bytes: round((read[i] ?? 0) / width, 3),
    ost_write_bytes: round((written[i] ?? 0) / width, 3),
  }));
}

/** `"zero"`, or the decade of a positive rate (floor of its log10), as the exporter's rate densities label it. */
export function decadeOf(rate: number): string {
  if (!(rate > 0)) return 'zero';
  let d = Math.floor(Math.log10(rate));
  // log10 of an exact power of ten can land a hair below it
  if (10 ** (d + 1) <= rate) d++;
  return String(d);
}

/** The job's place among every job's increase of a class over the same span (jobid `_other`, the exporter's fold, is not a job). */
export function densityOf(increases: ReadonlyMap<string, number>, jobid: string, seconds: number, measure: 'operations' | 'bytes'): ReportDensityJson | undefined {
  const jobs = [...increases].filter(([id]) => id !== '_other');
  if (jobs.length === 0 || !(seconds > 0)) return undefined;
  const own = increases.get(jobid) ?? 0;
  const decades = new Map<string, number>();
  for (const [, inc] of jobs) decades.set(decadeOf(inc / seconds), (decades.get(decadeOf(inc / seconds)) ?? 0) + 1);
  const order = (d: string): number => (d === 'zero' ? -Infinity : Number(d));
  const others = jobs.filter(([id]) => id !== jobid);
  return {
    measure,
    jobs: others.length + 1,
    decades: Object.fromEntries([...decades].sort((a, b) => order(a[0]) - order(b[0]))),
    rate: round(own / seconds, 3),
    decade: decadeOf(own / seconds),
    busier_than: others.length === 0 ? 1 : round(others.filter(([, inc]) => inc < own).length / others.length, 6),
  };
}

/** Every job's increase of a class's measure between two instants (`@`, no extrapolation), by job id. */
export type JobLoads = (from: number, to: number, measure: 'operations' | 'bytes') => Promise<ReadonlyMap<string, number>>;

/**
 * The JobLoads of a Prometheus server: MDT requests, or OST bytes read + written, per job. A job's
 * counter is taken at its last sample up to `to` (a job that ended in the span counts) minus its
 * value at `from` (a job born in the span counts from 0, as job_stats starts it).
 */
export function prometheusJobLoads(q: PrometheusQueryOptions): JobLoads {
  const diff = (family: string, cls: string, from: number, to: number): string => {
    const sel = `${family}{target=~".*${cls}[0-9a-fA-F]{4}"}`;
    const last = `last_over_time(${sel}[${Math.max(1, Math.ceil(to - from))}s] @ ${to})`;
    return `sum by (jobid) (clamp_min(${last} - (${sel} @ ${from} or ${last} * 0), 0))`;
  };
  return async (from, to, measure) => {
    const queries =
      measure === 'operations'
        ? [diff('jobio_lustre_jobstats_operations_total', 'MDT', from, to)]
        : [diff('jobio_lustre_jobstats_read_bytes_total', 'OST', from, to), diff('jobio_lustre_jobstats_write_bytes_total', 'OST', from, to)];
    const out = new Map<string, number>();
    for (const rs of await Promise.all(queries.map((x) => instantQuery(q, x)))) for (const r of rs) out.set(r.metric['jobid'] ?? '', (out.get(r.metric['jobid'] ?? '') ?? 0) + Number(r.value[1]));
    return out;
  };
}

/** The view with the job's rates over time and its place in the cluster's density per class it touched. */
export async function withTimeAndPlace(view: ReportFileSystemJson, s: JobStatsSamples, jobid: string, loads: JobLoads): Promise<ReportFileSystemJson> {
  const span = changeSpan(s);
  const overTime = ratesOverTime(s);
  if (span.length < 2) return view;
  const [from, to] = span as [number, number];
  const place = async (kind: 'mdt' | 'ost', measure: 'operations' | 'bytes'): Promise<ReportDensityJson | undefined> =>
    view[kind].targets > 0 ? densityOf(await loads(from, to, measure), jobid, to - from, measure) : undefined;
  const [mdt, ost] = await Promise.all([place('mdt', 'operations'), place('ost', 'bytes')]);
  return { ...view, over_time: overTime, density: { ...(mdt !== undefined ? { mdt } : {}), ...(ost !== undefined ? { ost } : {}) } };
}
