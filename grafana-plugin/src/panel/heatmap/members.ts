// The series in one heatmap cell, with their values at that step, largest first: one column recomputed
// with the same bucketing rule as density.ts (nothing per point is kept between the two).
import { type DensityIndex, rowOf } from './density';
import { findTime, type HeatSeries, seriesName } from './series';

export interface CellMember {
  index: number;
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Index of the first point at time `t` in unordered `times`, or -1. */
function scanTime(times: ArrayLike<number>, t: number): number {
  for (let j = 0; j < times.length; j++) {
    if (times[j] === t) {
      return j;
    }
  }
  return -1;
}

export function cellMembers(index: DensityIndex, series: HeatSeries[], step: number, row: number): CellMember[] {
  if (step < 0 || step >= index.times.length || row < 0 || row >= index.rows) {
    return [];
  }
  const t = index.times[step] as number;
  const out: CellMember[] = [];
  for (let i = 0; i < index.seriesCount; i++) {
    const s = series[i] as HeatSeries;
    const j = index.irregular[i] ? scanTime(s.times, t) : findTime(s.times, t);
    if (j < 0) {
      continue;
    }
    const v = s.values[j];
    if (rowOf(v, index.minExponent, index.rows) !== row) {
      continue;
    }
    out.push({ index: i, name: seriesName(s), labels: s.labels, value: Number(v) });
  }
  return out.sort((a, b) => b.value - a.value || a.name.localeCompare(b.name));
}

/** Lower and upper bound of a row: [0, 0] for the zero row, [10^e, 10^(e+1)) otherwise. */
export function rowBounds(index: DensityIndex, row: number): [number, number] {
  if (row === 0) {
    return [0, 0];
  }
  const e = index.minExponent + row - 1;
  return [10 ** e, 10 ** (e + 1)];
}
