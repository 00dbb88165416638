import { movingAverage, trendChange } from './trend';

describe('movingAverage', () => {
  it('averages the trailing k points', () => {
    expect(movingAverage([1, 2, 3, 4], 2)).toEqual([1, 1.5, 2.5, 3.5]);
    expect(movingAverage([1, 2, 3, 4], 1)).toEqual([1, 2, 3, 4]);
  });
  it('ignores gaps and gives NaN when the window has no value', () => {
    expect(movingAverage([NaN, 2, 4, NaN, NaN], 2)).toEqual([NaN, 2, 3, 4, NaN]);
  });
  it('refuses a window below 1', () => {
    expect(() => movingAverage([1], 0)).toThrow(/invalid window/);
  });
});

describe('trendChange', () => {
  it('flags a rise when short/long reaches the ratio', () => {
    const p = trendChange([1, 1, 1, 1, 9, 9], 2, 4, 1.5);
    expect(p.map((x) => x.short)).toEqual([1, 1, 1, 1, 5, 9]);
    expect(p.map((x) => x.long)).toEqual([1, 1, 1, 1, 3, 5]);
    expect(p[4]?.ratio).toBeCloseTo(5 / 3, 12);
    expect(p.map((x) => x.change)).toEqual([0, 0, 0, 0, 1, 1]);
  });
  it('flags a fall when short/long reaches 1/ratio', () => {
    const p = trendChange([10, 10, 10, 10, 1, 1], 2, 4, 1.5);
    expect(p[4]?.ratio).toBeCloseTo(5.5 / 7.75, 12);
    expect(p.map((x) => x.change)).toEqual([0, 0, 0, 0, 0, -1]);
  });
  it('treats a start from zero as a rise and zero over zero as no change', () => {
    const p = trendChange([0, 0, 0, 5], 1, 4, 2);
    expect(p[0]?.change).toBe(0);
    expect(p[3]?.ratio).toBeCloseTo(5 / 1.25, 12);
    expect(trendChange([0, 3], 1, 2, 2)[1]?.ratio).toBeCloseTo(2, 12);
    expect(trendChange([0, 0], 1, 2, 2)[1]?.ratio).toBeNaN();
  });
  it('refuses a ratio ≤ 1', () => {
    expect(() => trendChange([1], 1, 2, 1)).toThrow(/ratio/);
  });
});
