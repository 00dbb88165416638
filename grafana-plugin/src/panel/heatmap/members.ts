// The series in one heatmap cell, with their values at that step, largest first.
import { type DensityIndex, rowOfCode } from './density';
import { type HeatSeries, seriesName } from './series';

export interface CellMember {
  index: number;
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Index of `t` in ascending `times`, or -1. */
function findTime(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = times[mid] as number;
    if (v === t) {
      return mid;
    }
    if (v < t) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}

export function cellMembers(index: DensityIndex, series: HeatSeries[], step: number, row: number): CellMember[] {
  if (step < 0 || step >= index.times.length || row < 0 || row >= index.rows) {
    return [];
  }
  const t = index.times[step] as number;
  const steps = index.times.length;
  const out: CellMember[] = [];
  for (let i = 0; i < index.seriesCount; i++) {
    if (rowOfCode(index, index.codes[i * steps + step] as number) !== row) {
      continue;
    }
    const s = series[i] as HeatSeries;
    const j = findTime(s.times, t);
    out.push({ index: i, name: seriesName(s), labels: s.labels, value: j >= 0 ? Number(s.values[j]) : NaN });
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
