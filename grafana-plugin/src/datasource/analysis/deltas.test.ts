import { counterDelta, intervalDeltas, rangeGrid } from '../../../../exporter/src/analysis/deltas.js';

const series = (times: number[], values: number[]) => ({ labels: {}, times, values });

describe('counterDelta (reset rule of docs/architecture.md "Formulas")', () => {
  it('subtracts when the counter grew or stayed', () => {
    expect(counterDelta(100, 150)).toBe(50);
    expect(counterDelta(7, 7)).toBe(0);
  });
  it('takes the new value after a reset', () => {
    expect(counterDelta(150, 20)).toBe(20);
  });
});

describe('intervalDeltas', () => {
  const grid = [0, 1000, 2000, 3000];
  it('gives one delta per interval, NaN for the first point', () => {
    expect([...intervalDeltas(series(grid, [100, 150, 20, 70]), grid)]).toEqual([NaN, 50, 20, 50]);
  });
  it('credits the first value of a series that appears inside the window', () => {
    expect([...intervalDeltas(series([2000, 3000], [300, 350]), grid)]).toEqual([NaN, NaN, 300, 50]);
  });
  it('spans gaps: the delta lands on the interval where the series comes back', () => {
    expect([...intervalDeltas(series([0, 3000], [10, 40]), grid)]).toEqual([NaN, NaN, NaN, 30]);
  });
  it('skips non-finite values and off-grid points', () => {
    expect([...intervalDeltas(series([0, 500, 1000, 2000], [1, 99, NaN, 5]), grid)]).toEqual([NaN, NaN, 4, NaN]);
  });
});

describe('rangeGrid', () => {
  it('lists start, start+step, … up to end inclusive', () => {
    expect(rangeGrid(0, 3000, 1000)).toEqual([0, 1000, 2000, 3000]);
    expect(rangeGrid(0, 2500, 1000)).toEqual([0, 1000, 2000]);
  });
});
