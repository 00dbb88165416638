// Density of series over log10 buckets per time step (docs/architecture.md "Formulas", Tollander de
// Balsch 2023): at each step, how many series have a rate r with 10^y ≤ r < 10^(y+1), y = ⌊log10 r⌋.
// Zero is its own bucket (row 0); a series without a value at a step (null, NaN, negative, no point) is
// "no data", counted apart and never as zero.
//
// Speed (10,000 series × 720 steps in one pass): one typed histogram per (decade, column), kept as
// differences along time so that a run of steps in one decade costs two writes; no per-point allocation
// or store; the decade of the previous point is reused while successive rates stay in it. Which series
// sit in a cell is not stored per point: a click recomputes one column (members.ts), O(series) and about
// a millisecond.
import type { HeatSeries } from './series';
import { type Grid, type TimeAxis, gridTimes, guessGrid, unionAxis } from './time-axis';

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
  /** Histogram bin → row (bins of exponents outside a fixed range clamp into the edge rows). */
  rowOfBin: Int32Array;
  /**
   * 1 for a series whose times are not strictly increasing: a drill-down finds its point at a step by a
   * scan (the first of duplicate timestamps counts) instead of a binary search.
   */
  irregular: Uint8Array;
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
 * Histogram over every possible exponent, kept as differences along time: bin-major
 * (diff[bin * stride + column], stride = steps + 1), a count c over columns [a, b) of one bin is
 * diff[a] += c, diff[b] -= c, and the histogram is the running sum along each bin's columns. A series
 * that stays in one decade for a run of steps then costs two writes for the whole run instead of one
 * per point. Bin 0 = zero, bin k = exponent POW10_MIN + k − 1.
 */
const BINS = 310 - POW10_MIN + 2;

/** Adds `delta` to columns [from, to) of the bin row starting at diff offset `row`. */
function addSpan(diff: Int32Array, row: number, from: number, to: number, delta: number): void {
  diff[row + from] = (diff[row + from] as number) + delta;
  diff[row + to] = (diff[row + to] as number) - delta;
}

/**
 * Counts one series into diff on the assumption that its points sit in consecutive grid columns from
 * `first` (the usual range-query shape: present from one step to another), adding `delta` per point.
 * The assumption is checked in the same pass: returns n when it held, else the index of the first point
 * off it (points before it are counted). Per point: one time comparison and, while the rate stays in
 * the current decade, two value comparisons; the run [open, j) of points in that decade is written out
 * when a point leaves it.
 */
function countRun(series: HeatSeries, n: number, first: number, grid: Grid, stride: number, delta: number, diff: Int32Array, range: { lo: number; hi: number }): number {
  const { times, values } = series;
  const step = grid.step;
  let t = grid.start + first * step; // exact: integer milliseconds far below 2^53
  // Current decade [eLo, eHi) = [10^e, 10^(e+1)) and its bin row's offset h (column `first` included);
  // none at the start (e beyond the table makes both neighbour tests fail, and no point is in it).
  let e = 400;
  let eLo = Infinity;
  let eHi = Infinity;
  let h = 0;
  let open = 0;
  let j = 0;
  for (; j < n; j++) {
    if (times[j] !== t) {
      break;
    }
    t += step;
    const v = values[j] as number;
    if (v >= eLo && v < eHi) {
      continue;
    }
    if (j > open) {
      addSpan(diff, h, open, j, delta);
    }
    if (v > 0 && v < Infinity) {
      // Jitter around a decade boundary: try the neighbours before the general exponent.
      const up = pow10(e + 2);
      const down = pow10(e - 1);
      if (v >= eHi && v < up) {
        e++;
        eLo = eHi;
        eHi = up;
      } else if (v < eLo && v >= down) {
        e--;
        eHi = eLo;
        eLo = down;
      } else {
        e = exponentOf(v);
        eLo = pow10(e);
        eHi = pow10(e + 1);
      }
      // int32 index arithmetic: a float index makes the writes about 2× slower.
      h = ((e - POW10_MIN + 1) * stride + first) | 0;
      if (e < range.lo) {
        range.lo = e;
      }
      if (e > range.hi) {
        range.hi = e;
      }
      open = j;
      continue;
    }
    if (v === 0) {
      addSpan(diff, first, j, j + 1, delta);
    }
    // null, undefined, NaN, negative, +Inf: no data. The decade stays for the points after it.
    open = j + 1;
  }
  if (j > open) {
    addSpan(diff, h, open, j, delta);
  }
  return j;
}

/** First column of a series whose points could be consecutive grid columns, or -1. */
function runStart(times: ArrayLike<number>, grid: Grid | undefined, steps: number): number {
  const n = times.length;
  if (!grid || n === 0) {
    return -1;
  }
  const first = ((times[0] as number) - grid.start) / grid.step;
  return Number.isInteger(first) && first >= 0 && first + n <= steps ? first | 0 : -1;
}

const OFF_GRID = -1;
const SORTED = 0;
const UNSORTED = 1;

/**
 * Counts one series point by point through a column lookup; a column already taken by this series
 * (duplicate timestamp) keeps its first point. Returns OFF_GRID when a point is off the guessed grid,
 * else whether the series' times were strictly increasing.
 */
function countPoints(series: HeatSeries, stamp: number, columnOf: (t: number) => number, taken: Int32Array, diff: Int32Array, steps: number, range: { lo: number; hi: number }): number {
  const { times, values } = series;
  let order = SORTED;
  let prev = -Infinity;
  for (let j = 0; j < values.length; j++) {
    const t = times[j] as number;
    const col = columnOf(t);
    if (Number.isNaN(col)) {
      return OFF_GRID;
    }
    if (!(t > prev)) {
      order = UNSORTED;
    }
    prev = t;
    if (col < 0 || col >= steps || taken[col] === stamp) {
      continue; // off the axis, or a duplicate timestamp (the first point counts)
    }
    taken[col] = stamp;
    const v = values[j] as number;
    if (v > 0 && v < Infinity) {
      const e = exponentOf(v);
      range.lo = Math.min(range.lo, e);
      range.hi = Math.max(range.hi, e);
      addSpan(diff, (e - POW10_MIN + 1) * (steps + 1), col, col + 1, 1);
    } else if (v === 0) {
      addSpan(diff, 0, col, col + 1, 1);
    }
  }
  return order;
}

/** Fills diff for every series on one column layout; false when a point is off the guessed grid. */
function countAll(series: HeatSeries[], steps: number, grid: Grid | undefined, axis: TimeAxis | undefined, diff: Int32Array, irregular: Uint8Array, range: { lo: number; hi: number }): boolean {
  const taken = new Int32Array(steps);
  // NaN marks "not on the grid" so the caller can retry on the union axis.
  const columnOf = grid ? (t: number) => (Number.isInteger((t - grid.start) / grid.step) ? (t - grid.start) / grid.step : NaN) : (axis as TimeAxis).columnOf;
  for (let s = 0; s < series.length; s++) {
    const one = series[s] as HeatSeries;
    const first = runStart(one.times, grid, steps);
    if (first >= 0) {
      const n = one.values.length;
      const done = countRun(one, n, first, grid as Grid, steps + 1, 1, diff, range);
      if (done === n) {
        continue;
      }
      countRun(one, done, first, grid as Grid, steps + 1, -1, diff, range); // undo, then count point by point
    }
    const order = countPoints(one, s + 1, columnOf, taken, diff, steps, range);
    if (order === OFF_GRID) {
      return false;
    }
    irregular[s] = order;
  }
  return true;
}

/** Adds one bin's histogram (the running sum of its differences) into row `row` of counts. */
function foldBin(diff: Int32Array, steps: number, bin: number, row: number, rows: number, counts: Uint32Array, noData: Uint32Array): void {
  const base = bin * (steps + 1);
  let k = 0;
  for (let t = 0; t < steps; t++) {
    k += diff[base + t] as number;
    if (k > 0) {
      counts[t * rows + row] = (counts[t * rows + row] as number) + k;
      noData[t] = (noData[t] as number) - k;
    }
  }
}

export function buildDensity(series: HeatSeries[], options: DensityOptions = {}): DensityIndex {
  const grid = guessGrid(series);
  let times = grid ? gridTimes(grid) : new Float64Array(0);
  let steps = times.length;
  const n = series.length;
  let diff = new Int32Array((steps + 1) * BINS);
  let irregular = new Uint8Array(n);
  const range = { lo: Infinity, hi: -Infinity };
  if (!grid || !countAll(series, steps, grid, undefined, diff, irregular, range)) {
    const axis = unionAxis(series);
    times = axis.times;
    steps = times.length;
    diff = new Int32Array((steps + 1) * BINS);
    irregular = new Uint8Array(n);
    range.lo = Infinity;
    range.hi = -Infinity;
    countAll(series, steps, undefined, axis, diff, irregular, range);
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
  // Only the zero bin and the bins of the exponents seen hold differences.
  foldBin(diff, steps, 0, 0, rows, counts, noData);
  for (let e = range.lo; e <= range.hi; e++) {
    const bin = e - POW10_MIN + 1;
    foldBin(diff, steps, bin, rowOfBin[bin] as number, rows, counts, noData);
  }
  let maxCount = 0;
  for (let c = 0; c < cells; c++) {
    maxCount = Math.max(maxCount, counts[c] as number);
  }
  return { times, seriesCount: n, minExponent, rows, counts, noData, maxCount, rowOfBin, irregular };
}
