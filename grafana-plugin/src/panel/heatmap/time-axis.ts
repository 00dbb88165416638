// The common time axis of many series. Range-query results sit on a regular grid (start + k·step) with
// gaps where a series is absent: then a point's column is (t − start) / step, computed inline by the
// bucketing loop. Irregular input falls back to the sorted union of all timestamps.
import type { HeatSeries } from './series';

/** A regular grid guess: earliest time, smallest step seen, column count. */
export interface Grid {
  start: number;
  step: number;
  count: number;
}

export interface TimeAxis {
  times: Float64Array;
  /** Column of a timestamp, or -1 when it is not on the axis. */
  columnOf: (t: number) => number;
}

/** Guesses the grid from endpoints and the first few steps of each series (O(series)). */
export function guessGrid(series: HeatSeries[]): Grid | undefined {
  let min = Infinity;
  let max = -Infinity;
  let step = Infinity;
  for (const s of series) {
    const n = s.times.length;
    if (n === 0) {
      continue;
    }
    min = Math.min(min, s.times[0] as number);
    max = Math.max(max, s.times[n - 1] as number);
    for (let j = 1; j < Math.min(n, 9); j++) {
      const d = (s.times[j] as number) - (s.times[j - 1] as number);
      if (d > 0 && d < step) {
        step = d;
      }
    }
  }
  if (!Number.isFinite(min)) {
    return undefined;
  }
  if (!Number.isFinite(step)) {
    step = max > min ? max - min : 1;
  }
  const count = (max - min) / step + 1;
  return Number.isInteger(count) ? { start: min, step, count } : undefined;
}

export function gridTimes(grid: Grid): Float64Array {
  const times = new Float64Array(grid.count);
  for (let i = 0; i < grid.count; i++) {
    times[i] = grid.start + i * grid.step;
  }
  return times;
}

/** The sorted union of all timestamps, with a lookup. */
export function unionAxis(series: HeatSeries[]): TimeAxis {
  const all = new Set<number>();
  for (const s of series) {
    for (let j = 0; j < s.times.length; j++) {
      all.add(s.times[j] as number);
    }
  }
  const times = Float64Array.from([...all].sort((a, b) => a - b));
  const index = new Map<number, number>();
  times.forEach((t, i) => index.set(t, i));
  return { times, columnOf: (t: number) => index.get(t) ?? -1 };
}

/** The axis as a lookup (used by tests and by the irregular path). */
export function buildTimeAxis(series: HeatSeries[]): TimeAxis {
  const grid = guessGrid(series);
  if (grid) {
    const onGrid = series.every((s) => {
      for (let j = 0; j < s.times.length; j++) {
        if (!Number.isInteger(((s.times[j] as number) - grid.start) / grid.step)) {
          return false;
        }
      }
      return true;
    });
    if (onGrid) {
      return {
        times: gridTimes(grid),
        columnOf: (t) => {
          const k = (t - grid.start) / grid.step;
          return Number.isInteger(k) && k >= 0 && k < grid.count ? k : -1;
        },
      };
    }
  }
  return unionAxis(series);
}
