// The common time axis of many series. Range-query results sit on a regular grid (start + k·step) with
// gaps where a series is absent; then a point's column is arithmetic. Irregular input falls back to the
// sorted union of all timestamps.
import type { HeatSeries } from './series';

export interface TimeAxis {
  times: Float64Array;
  /** Column of a timestamp, or -1 when it is not on the axis. */
  columnOf: (t: number) => number;
}

function regularAxis(series: HeatSeries[]): TimeAxis | undefined {
  let min = Infinity;
  let max = -Infinity;
  let step = Infinity;
  for (const s of series) {
    const n = s.times.length;
    if (n === 0) {
      continue;
    }
    min = Math.min(min, s.times[0] ?? Infinity);
    max = Math.max(max, s.times[n - 1] ?? -Infinity);
    for (let j = 1; j < n; j++) {
      const d = (s.times[j] ?? 0) - (s.times[j - 1] ?? 0);
      if (d > 0 && d < step) {
        step = d;
      }
    }
  }
  if (!Number.isFinite(min)) {
    return { times: new Float64Array(0), columnOf: () => -1 };
  }
  if (!Number.isFinite(step)) {
    step = max > min ? max - min : 1;
  }
  for (const s of series) {
    for (let j = 0; j < s.times.length; j++) {
      const k = ((s.times[j] ?? 0) - min) / step;
      if (Math.abs(k - Math.round(k)) > 1e-6) {
        return undefined;
      }
    }
  }
  const count = Math.round((max - min) / step) + 1;
  const times = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    times[i] = min + i * step;
  }
  return {
    times,
    columnOf: (t: number) => {
      const k = Math.round((t - min) / step);
      return k >= 0 && k < count ? k : -1;
    },
  };
}

function unionAxis(series: HeatSeries[]): TimeAxis {
  const all = new Set<number>();
  for (const s of series) {
    for (let j = 0; j < s.times.length; j++) {
      all.add(s.times[j] ?? 0);
    }
  }
  const times = Float64Array.from([...all].sort((a, b) => a - b));
  const index = new Map<number, number>();
  times.forEach((t, i) => index.set(t, i));
  return { times, columnOf: (t: number) => index.get(t) ?? -1 };
}

export function buildTimeAxis(series: HeatSeries[]): TimeAxis {
  return regularAxis(series) ?? unionAxis(series);
}
