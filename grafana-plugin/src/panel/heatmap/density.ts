// Density of series over log10 buckets per time step (DESIGN 4, Tollander de Balsch 2023): at each
// step, how many series have a rate r with 10^y ≤ r < 10^(y+1), y = ⌊log10 r⌋. Zero is its own bucket
// (row 0); a series without a value at a step (null, NaN, negative, no point) is "no data", counted
// apart and never as zero. A CSR index (offsets/members) lists the series in each cell.
import type { HeatSeries } from './series';
import { buildTimeAxis } from './time-axis';

const NO_DATA = -32768;
const ZERO = -32767;

export interface DensityIndex {
  times: Float64Array;
  seriesCount: number;
  /** Exponent of row 1; row k ≥ 1 is [10^(minExponent+k−1), 10^(minExponent+k)). Row 0 is zero. */
  minExponent: number;
  rows: number;
  /** counts[step * rows + row] */
  counts: Uint32Array;
  noData: Uint32Array;
  maxCount: number;
  /** members[offsets[c] .. offsets[c+1]) are the series indices in cell c = step * rows + row. */
  offsets: Uint32Array;
  members: Uint32Array;
}

export interface DensityOptions {
  minExponent?: number;
  maxExponent?: number;
}

/** Correctly rounded powers of ten (parsed literals; `10 ** e` is off by an ulp for some e < 0). */
const POW10_MIN = -330;
const POW10 = Float64Array.from({ length: 310 - POW10_MIN + 1 }, (_, i) => Number(`1e${i + POW10_MIN}`));
const pow10 = (e: number) => (e < POW10_MIN ? 0 : e > 310 ? Infinity : (POW10[e - POW10_MIN] as number));

/** ⌊log10 v⌋ for finite v > 0, exact at powers of ten. */
export function exponentOf(v: number): number {
  let e = Math.floor(Math.log10(v));
  if (pow10(e + 1) <= v) {
    e++;
  } else if (pow10(e) > v) {
    e--;
  }
  return e;
}

/** Row of a value in a layout with `rows` rows starting at `minExponent`, or -1 for no data. */
export function rowOf(v: number | null | undefined, minExponent: number, rows: number): number {
  if (v === null || v === undefined || !(v >= 0) || v === Infinity) {
    return -1;
  }
  if (v === 0) {
    return 0;
  }
  const row = exponentOf(v) - minExponent + 1;
  return Math.min(Math.max(row, 1), rows - 1);
}

export function buildDensity(series: HeatSeries[], options: DensityOptions = {}): DensityIndex {
  const axis = buildTimeAxis(series);
  const steps = axis.times.length;
  const n = series.length;
  const codes = new Int16Array(n * steps).fill(NO_DATA);
  let lo = Infinity;
  let hi = -Infinity;
  for (let s = 0; s < n; s++) {
    const { times, values } = series[s] as HeatSeries;
    const base = s * steps;
    for (let j = 0; j < values.length; j++) {
      const v = values[j];
      if (v === null || v === undefined || !(v >= 0) || v === Infinity) {
        continue;
      }
      const col = axis.columnOf(times[j] as number);
      if (col < 0) {
        continue;
      }
      if (v === 0) {
        codes[base + col] = ZERO;
        continue;
      }
      const e = exponentOf(v);
      codes[base + col] = e;
      if (e < lo) {
        lo = e;
      }
      if (e > hi) {
        hi = e;
      }
    }
  }
  const minExponent = options.minExponent ?? (Number.isFinite(lo) ? lo : 0);
  const maxExponent = Math.max(options.maxExponent ?? (Number.isFinite(hi) ? hi : minExponent), minExponent);
  const rows = 1 + (maxExponent - minExponent + 1);
  const cells = steps * rows;
  const counts = new Uint32Array(cells);
  const noData = new Uint32Array(steps);
  // Row of a stored code; codes below/above a fixed range clamp to the edge buckets.
  const rowOfCode = (code: number) => (code === ZERO ? 0 : Math.min(Math.max(code - minExponent + 1, 1), rows - 1));
  for (let s = 0; s < n; s++) {
    const base = s * steps;
    for (let t = 0; t < steps; t++) {
      const code = codes[base + t] as number;
      if (code === NO_DATA) {
        noData[t] = (noData[t] as number) + 1;
      } else {
        const c = t * rows + rowOfCode(code);
        counts[c] = (counts[c] as number) + 1;
      }
    }
  }
  const offsets = new Uint32Array(cells + 1);
  let maxCount = 0;
  for (let c = 0; c < cells; c++) {
    const k = counts[c] as number;
    offsets[c + 1] = (offsets[c] as number) + k;
    if (k > maxCount) {
      maxCount = k;
    }
  }
  const members = new Uint32Array(offsets[cells] as number);
  const fill = offsets.slice(0, cells);
  for (let s = 0; s < n; s++) {
    const base = s * steps;
    for (let t = 0; t < steps; t++) {
      const code = codes[base + t] as number;
      if (code !== NO_DATA) {
        const c = t * rows + rowOfCode(code);
        members[fill[c] as number] = s;
        fill[c] = (fill[c] as number) + 1;
      }
    }
  }
  return { times: axis.times, seriesCount: n, minExponent, rows, counts, noData, maxCount, offsets, members };
}
