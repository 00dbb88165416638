// Density of series over log10 buckets per time step (docs/architecture.md "Formulas", Tollander de Balsch 2023): at each
// step, how many series have a rate r with 10^y ≤ r < 10^(y+1), y = ⌊log10 r⌋. Zero is its own bucket
// (row 0); a series without a value at a step (null, NaN, negative, no point) is "no data", counted
// apart and never as zero. A series × step table of bucket codes lists the series in each cell.
import type { HeatSeries } from './series';
import { type Grid, type TimeAxis, gridTimes, guessGrid, unionAxis } from './time-axis';

const NO_DATA = -32768;
const ZERO = -32767;
export const NO_DATA_CODE = NO_DATA;
export const ZERO_CODE = ZERO;

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
  /**
   * Membership index: codes[series * steps + step] is the series' bucket code at that step (an exponent,
   * ZERO_CODE or NO_DATA_CODE); rowOfBin maps it to a row (see rowOfCode). A cell's members are one
   * column scan: O(series), under a millisecond at 10,000 series.
   */
  codes: Int16Array;
  rowOfBin: Int32Array;
}

export interface DensityOptions {
  minExponent?: number;
  maxExponent?: number;
}

/** Correctly rounded powers of ten (parsed literals; `10 ** e` is off by an ulp for some e < 0). */
const POW10_MIN = -330;
const POW10 = Float64Array.from({ length: 310 - POW10_MIN + 1 }, (_, i) => Number(`1e${i + POW10_MIN}`));
const pow10 = (e: number) => (e < POW10_MIN ? 0 : e > 310 ? Infinity : (POW10[e - POW10_MIN] as number));

const LOG10_2 = Math.log10(2);
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * ⌊log10 v⌋ for finite v > 0, exact at powers of ten. The binary exponent read from the bits gives a
 * guess within one of the answer; the table of powers settles it (no Math.log10 on the hot path).
 */
export function exponentOf(v: number): number {
  F64[0] = v;
  const e2 = ((U32[HI] as number) >>> 20) - 1023;
  let e = e2 === -1023 ? Math.floor(Math.log10(v)) : Math.floor(e2 * LOG10_2);
  while (pow10(e + 1) <= v) {
    e++;
  }
  while (pow10(e) > v) {
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

/**
 * Histogram over every possible exponent, bin-major (hist[bin * steps + step]) so that a series that
 * stays in one decade writes consecutive cells. Bin 0 = zero, bin k = exponent POW10_MIN + k − 1.
 */
const BINS = 310 - POW10_MIN + 2;
const binOf = (code: number) => (code === ZERO ? 0 : code - POW10_MIN + 1);

/** Row of a stored code in an index, or -1 for no data. */
export function rowOfCode(index: Pick<DensityIndex, 'rowOfBin'>, code: number): number {
  return code === NO_DATA ? -1 : (index.rowOfBin[binOf(code)] as number);
}

/**
 * Pass 1: exponent codes per (series, column) and the full-range histogram per column. Returns false
 * when a point is off the guessed grid (the caller then retries with the union axis).
 */
function fillCodes(series: HeatSeries[], steps: number, column: Grid | TimeAxis, codes: Int16Array, hist: Uint32Array, range: { lo: number; hi: number }): boolean {
  const grid = 'step' in column ? column : undefined;
  const axis = grid ? undefined : (column as TimeAxis);
  let { lo, hi } = range;
  for (let s = 0; s < series.length; s++) {
    const { times, values } = series[s] as HeatSeries;
    const base = s * steps;
    const n = values.length;
    // A series on every step of the grid needs no time arithmetic at all.
    const dense = grid !== undefined && n === steps && times[0] === grid.start && times[n - 1] === grid.start + (steps - 1) * grid.step;
    // Successive rates of one series mostly stay in one decade: reuse the last exponent when it fits.
    let e = 0;
    let eLo = Infinity;
    let eHi = -Infinity;
    let h = 0;
    for (let j = 0; j < n; j++) {
      const v = values[j] as number;
      let col = j;
      if (!dense) {
        const t = times[j] as number;
        if (grid) {
          col = (t - grid.start) / grid.step;
          if (!Number.isInteger(col)) {
            return false;
          }
        } else {
          col = (axis as TimeAxis).columnOf(t);
        }
        if (col < 0 || col >= steps || codes[base + col] !== NO_DATA) {
          continue; // off the axis, or a duplicate timestamp (the first point counts)
        }
      }
      if (v >= eLo && v < eHi) {
        codes[base + col] = e;
        hist[h + col] = (hist[h + col] as number) + 1;
      } else if (v > 0 && v < Infinity) {
        e = exponentOf(v);
        eLo = pow10(e);
        eHi = pow10(e + 1);
        h = (e - POW10_MIN + 1) * steps;
        lo = Math.min(lo, e);
        hi = Math.max(hi, e);
        codes[base + col] = e;
        hist[h + col] = (hist[h + col] as number) + 1;
      } else if (v === 0) {
        codes[base + col] = ZERO;
        hist[col] = (hist[col] as number) + 1;
      }
      // null, undefined, NaN, negative, +Inf: no data.
    }
  }
  range.lo = lo;
  range.hi = hi;
  return true;
}

export function buildDensity(series: HeatSeries[], options: DensityOptions = {}): DensityIndex {
  const grid = guessGrid(series);
  let times = grid ? gridTimes(grid) : new Float64Array(0);
  let steps = times.length;
  const n = series.length;
  let codes = new Int16Array(n * steps).fill(NO_DATA);
  let hist = new Uint32Array(steps * BINS);
  const range = { lo: Infinity, hi: -Infinity };
  if (!grid || !fillCodes(series, steps, grid, codes, hist, range)) {
    const axis = unionAxis(series);
    times = axis.times;
    steps = times.length;
    codes = new Int16Array(n * steps).fill(NO_DATA);
    hist = new Uint32Array(steps * BINS);
    range.lo = Infinity;
    range.hi = -Infinity;
    fillCodes(series, steps, axis, codes, hist, range);
  }
  const minExponent = options.minExponent ?? (Number.isFinite(range.lo) ? range.lo : 0);
  const maxExponent = Math.max(options.maxExponent ?? (Number.isFinite(range.hi) ? range.hi : minExponent), minExponent);
  const rows = 1 + (maxExponent - minExponent + 1);
  // Histogram bin → row, clamping exponents outside a fixed range into the edge buckets.
  const rowOfBin = new Int32Array(BINS);
  for (let b = 1; b < BINS; b++) {
    rowOfBin[b] = Math.min(Math.max(b - 1 + POW10_MIN - minExponent + 1, 1), rows - 1);
  }
  const cells = steps * rows;
  const counts = new Uint32Array(cells);
  const noData = new Uint32Array(steps).fill(n);
  for (let b = 0; b < BINS; b++) {
    const row = rowOfBin[b] as number;
    for (let t = 0; t < steps; t++) {
      const k = hist[b * steps + t] as number;
      if (k > 0) {
        counts[t * rows + row] = (counts[t * rows + row] as number) + k;
        noData[t] = (noData[t] as number) - k;
      }
    }
  }
  let maxCount = 0;
  for (let c = 0; c < cells; c++) {
    maxCount = Math.max(maxCount, counts[c] as number);
  }
  return { times, seriesCount: n, minExponent, rows, counts, noData, maxCount, codes, rowOfBin };
}
