import { buildDensity, exponentOf, rowOf } from './density';
import { cellMembers, rowBounds } from './members';
import type { HeatSeries } from './series';
import { buildTimeAxis } from './time-axis';

const s = (name: string, values: Array<number | null>, times = [0, 1000, 2000]): HeatSeries => ({ name, labels: { user: name }, times, values });

describe('exponentOf', () => {
  it.each([
    [1, 0],
    [9.999, 0],
    [10, 1],
    [1000, 3],
    [999.9999, 2],
    [0.001, -3],
    [0.00999, -3],
    [1e-7, -7],
    [1e15, 15],
    [123456, 5],
  ])('⌊log10 %p⌋ = %p', (v, e) => {
    expect(exponentOf(v)).toBe(e);
  });
  it('is exact at every power of ten from 1e-300 to 1e300', () => {
    for (let e = -300; e <= 300; e++) {
      expect(exponentOf(Number(`1e${e}`))).toBe(e);
    }
  });
});

describe('rowOf', () => {
  it('puts zero in row 0, no data in -1, and clamps to the edges', () => {
    expect(rowOf(0, -1, 6)).toBe(0);
    expect(rowOf(null, -1, 6)).toBe(-1);
    expect(rowOf(NaN, -1, 6)).toBe(-1);
    expect(rowOf(-3, -1, 6)).toBe(-1);
    expect(rowOf(Infinity, -1, 6)).toBe(-1);
    expect(rowOf(0.5, -1, 6)).toBe(1);
    expect(rowOf(5e9, -1, 6)).toBe(5);
    expect(rowOf(1e-9, -1, 6)).toBe(1);
  });
});

describe('buildDensity: hand-computed grid', () => {
  // A: 0, 5, –     B: 15, 150, 0.5     C: NaN, 1000, 2000   → exponents −1 … 3, rows 0 (zero) + 5.
  const series = [s('A', [0, 5, null]), s('B', [15, 150, 0.5]), s('C', [NaN, 1000, 2000])];
  const d = buildDensity(series);
  const counts = (step: number) => Array.from(d.counts.slice(step * d.rows, (step + 1) * d.rows));
  it('finds the exponent range from the data', () => {
    expect(d.minExponent).toBe(-1);
    expect(d.rows).toBe(6);
    expect(Array.from(d.times)).toEqual([0, 1000, 2000]);
  });
  it('counts each step; zero is its own bucket; no data is apart', () => {
    expect(counts(0)).toEqual([1, 0, 0, 1, 0, 0]);
    expect(counts(1)).toEqual([0, 0, 1, 0, 1, 1]);
    expect(counts(2)).toEqual([0, 1, 0, 0, 0, 1]);
    expect(Array.from(d.noData)).toEqual([1, 0, 1]);
    expect(d.maxCount).toBe(1);
  });
  it('lists the members of a cell with their values, largest first', () => {
    expect(cellMembers(d, series, 1, 5).map((m) => [m.name, m.value])).toEqual([['C', 1000]]);
    expect(cellMembers(d, series, 0, 0).map((m) => m.name)).toEqual(['A']);
    expect(cellMembers(d, series, 9, 0)).toEqual([]);
    expect(rowBounds(d, 3)).toEqual([10, 100]);
    expect(rowBounds(d, 0)).toEqual([0, 0]);
  });
  it('every point is counted exactly once', () => {
    const total = Array.from(d.counts).reduce((a, b) => a + b, 0) + Array.from(d.noData).reduce((a, b) => a + b, 0);
    expect(total).toBe(series.length * d.times.length);
    // The membership index agrees with the counts in every cell.
    for (let step = 0; step < d.times.length; step++) {
      for (let row = 0; row < d.rows; row++) {
        expect(cellMembers(d, series, step, row)).toHaveLength(d.counts[step * d.rows + row] ?? -1);
      }
    }
  });
});

describe('buildDensity: options and shapes', () => {
  it('clamps values outside a fixed range into the edge buckets', () => {
    const d = buildDensity([s('B', [15, 150, 0.5]), s('C', [null, 1000, 2000])], { minExponent: 0, maxExponent: 2 });
    expect(d.rows).toBe(4);
    expect(Array.from(d.counts.slice(2 * 4, 3 * 4))).toEqual([0, 1, 0, 1]);
  });
  it('sorts many series in one cell by value', () => {
    const many = Array.from({ length: 50 }, (_, i) => s(`u${i}`, [10 + i, 0, 0]));
    const d = buildDensity(many);
    const list = cellMembers(d, many, 0, d.rows - 1);
    expect(list).toHaveLength(50);
    expect(list.map((m) => m.value)).toEqual([...list.map((m) => m.value)].sort((a, b) => b - a));
    expect(list[0]?.name).toBe('u49');
    expect(d.maxCount).toBe(50);
  });
  it('places gaps of a regular grid as no data', () => {
    const d = buildDensity([s('A', [1, 1], [0, 2000]), s('B', [1, 1, 1])]);
    expect(Array.from(d.times)).toEqual([0, 1000, 2000]);
    expect(Array.from(d.noData)).toEqual([0, 1, 0]);
  });
  it('undoes a run that breaks part-way, keeps the first of duplicate timestamps, and counts unsorted series', () => {
    // B breaks its run at the third point (a gap), C repeats a timestamp, D is unsorted (C and D are
    // looked up by a scan).
    const series = [s('A', [1, 2, 3, 4], [0, 1000, 2000, 3000]), s('B', [10, 20, 30], [0, 1000, 3000]), s('C', [100, 500, 200], [0, 1000, 1000]), s('D', [0, 5000], [3000, 0])];
    const d = buildDensity(series);
    expect(Array.from(d.times)).toEqual([0, 1000, 2000, 3000]);
    expect(Array.from(d.noData)).toEqual([0, 1, 3, 1]);
    expect(Array.from(d.irregular)).toEqual([0, 0, 1, 1]);
    const total = Array.from(d.counts).reduce((a, b) => a + b, 0);
    expect(total).toBe(4 + 3 + 2 + 2);
    // C at 1000 ms counts its first point (500, not 200); D's 0 at 3000 ms is in the zero row.
    expect(cellMembers(d, series, 1, d.rows - 2).map((m) => [m.name, m.value])).toEqual([['C', 500]]);
    expect(cellMembers(d, series, 3, 0).map((m) => m.name)).toEqual(['D']);
    expect(cellMembers(d, series, 0, d.rows - 1).map((m) => m.name)).toEqual(['D']);
    for (let step = 0; step < d.times.length; step++) {
      for (let row = 0; row < d.rows; row++) {
        expect(cellMembers(d, series, step, row)).toHaveLength(d.counts[step * d.rows + row] ?? -1);
      }
    }
  });
  it('falls back to the union of timestamps for irregular series', () => {
    const axis = buildTimeAxis([s('A', [1, 1], [0, 1000]), s('B', [1, 1], [0, 1500])]);
    expect(Array.from(axis.times)).toEqual([0, 1000, 1500]);
    expect(axis.columnOf(1500)).toBe(2);
    expect(axis.columnOf(700)).toBe(-1);
  });
  it('counts irregular series on the union of their timestamps', () => {
    const d = buildDensity([s('A', [5, 50], [0, 1000]), s('B', [500, 0], [0, 1500]), s('C', [1, 2], [0, 333])]);
    expect(Array.from(d.times)).toEqual([0, 333, 1000, 1500]);
    expect(Array.from(d.noData)).toEqual([0, 2, 2, 2]);
    expect(cellMembers(d, [s('A', [5, 50], [0, 1000]), s('B', [500, 0], [0, 1500]), s('C', [1, 2], [0, 333])], 3, 0).map((m) => m.name)).toEqual(['B']);
  });
  it('handles no series and all-zero data', () => {
    expect(buildDensity([]).times.length).toBe(0);
    const zeros = buildDensity([s('A', [0, 0, 0])]);
    expect(zeros.rows).toBe(2);
    expect(Array.from(zeros.counts)).toEqual([1, 0, 1, 0, 1, 0]);
  });
  it('handles a single timestamp', () => {
    const d = buildDensity([s('A', [5], [1000]), s('B', [50], [1000])]);
    expect(Array.from(d.times)).toEqual([1000]);
    expect(Array.from(d.counts)).toEqual([0, 1, 1]);
  });
});
