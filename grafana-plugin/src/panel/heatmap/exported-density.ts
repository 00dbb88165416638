// A density heatmap whose counts come from the exporter (jobio_lustre_jobstats_rate_jobs / _rate_users,
// docs/metrics.md): the exporter counts every job in each decade, also the jobs folded into
// jobid="_other" that have no series of their own, so a density counted from the per-job series alone
// under-counts the long tail. A query such as `sum by (decade) (jobio_lustre_jobstats_rate_jobs{class="operations"})`
// gives one series per decade (label `decade`: an integer, or `zero`); the per-job series of the other
// queries still give the drill-down members. A cell's count is the exported one; the members listed
// are the jobs with their own series; the difference is shown as "N more jobs without their own series".
import { buildDensity, type DensityIndex, type DensityOptions } from './density';
import { findTime, type HeatSeries } from './series';

export const DECADE_LABEL = 'decade';

/** A series of exported counts (it has a `decade` label), not a job's rate. */
export function isDecadeSeries(s: HeatSeries): boolean {
  return s.labels[DECADE_LABEL] !== undefined;
}

/** `zero` → 'zero', an integer decade → that number, anything else → undefined (ignored). */
function decadeOf(label: string | undefined): number | 'zero' | undefined {
  if (label === 'zero') {
    return 'zero';
  }
  return label !== undefined && /^-?\d+$/.test(label) ? Number(label) : undefined;
}

/** The sorted union of the bucket series' timestamps (when no per-job series gives a time axis). */
function bucketTimes(buckets: HeatSeries[]): Float64Array {
  const all = new Set<number>();
  for (const b of buckets) {
    for (let j = 0; j < b.times.length; j++) {
      all.add(b.times[j] as number);
    }
  }
  return Float64Array.from([...all].sort((a, b) => a - b));
}

export interface ExportedDensity {
  /** The per-job series: drill-down members. */
  series: HeatSeries[];
  index: DensityIndex;
  /** True when the counts are the exporter's (some series had a `decade` label). */
  exported: boolean;
}

/**
 * Splits the series into decade counts and per-job series, builds the membership index from the
 * per-job series over a row range that also holds every exported decade, then takes the counts of
 * each cell from the exported ones (summed over the bucket series of a decade: targets, hosts).
 */
export function buildExportedDensity(all: HeatSeries[], options: DensityOptions = {}): ExportedDensity {
  const buckets = all.filter(isDecadeSeries);
  if (buckets.length === 0) {
    return { series: all, index: buildDensity(all, options), exported: false };
  }
  const series = all.filter((s) => !isDecadeSeries(s));
  let lo = Infinity;
  let hi = -Infinity;
  for (const b of buckets) {
    const d = decadeOf(b.labels[DECADE_LABEL]);
    // The exporter exports every decade, 0 when empty: the rows span the decades that hold a job.
    if (typeof d === 'number' && Array.from(b.values).some((v) => (v ?? 0) > 0)) {
      lo = Math.min(lo, d);
      hi = Math.max(hi, d);
    }
  }
  const members = buildDensity(series);
  if (series.length > 0 && members.times.length > 0 && members.rows > 1) {
    lo = Math.min(lo, members.minExponent);
    hi = Math.max(hi, members.minExponent + members.rows - 2);
  }
  const minExponent = options.minExponent ?? (Number.isFinite(lo) ? lo : 0);
  const maxExponent = Math.max(options.maxExponent ?? (Number.isFinite(hi) ? hi : minExponent), minExponent);
  let index = buildDensity(series, { minExponent, maxExponent });
  if (index.times.length === 0) {
    const times = bucketTimes(buckets);
    index = { ...index, times, noData: new Uint32Array(times.length), counts: new Uint32Array(times.length * index.rows) };
  }
  const { rows, times } = index;
  const counts = new Uint32Array(times.length * rows);
  for (const b of buckets) {
    const d = decadeOf(b.labels[DECADE_LABEL]);
    if (d === undefined) {
      continue;
    }
    const row = d === 'zero' ? 0 : Math.min(Math.max(d - minExponent + 1, 1), rows - 1);
    for (let j = 0; j < b.values.length; j++) {
      const v = Number(b.values[j]);
      const step = findTime(times, b.times[j] as number);
      if (step < 0 || !(v > 0) || !Number.isFinite(v)) {
        continue;
      }
      counts[step * rows + row] = (counts[step * rows + row] as number) + Math.round(v);
    }
  }
  let maxCount = 0;
  for (let c = 0; c < counts.length; c++) {
    maxCount = Math.max(maxCount, counts[c] as number);
  }
  return { series, index: { ...index, counts, maxCount }, exported: true };
}

/** Jobs counted in a cell beyond the members listed: the ones without their own series. */
export function jobsWithoutSeries(count: number, members: number): number {
  return Math.max(0, count - members);
}
