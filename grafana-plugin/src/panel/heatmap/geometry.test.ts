import { LEVELS, logLevel, palette } from './colors';
import { buildDensity } from './density';
import { formatValue, rowLabel, rowRange } from './labels';
import { cellOrigin, computeLayout, hitTest } from './layout';

describe('logLevel', () => {
  it('maps counts on a log scale', () => {
    expect(logLevel(0, 100)).toBe(-1);
    expect(logLevel(1, 100)).toBe(0);
    expect(logLevel(100, 100)).toBe(LEVELS - 1);
    expect(logLevel(10, 100)).toBe(Math.round(0.5 * (LEVELS - 1)));
    expect(logLevel(1, 1)).toBe(LEVELS - 1);
  });
  it('builds palettes of LEVELS colours', () => {
    for (const scheme of ['viridis', 'oranges', 'blues'] as const) {
      const p = palette(scheme);
      expect(p).toHaveLength(LEVELS);
      expect(p[0]).toMatch(/^rgb\(\d+, \d+, \d+\)$/);
    }
    expect(palette('viridis')[0]).toBe('rgb(68, 1, 84)');
    expect(palette('viridis')[LEVELS - 1]).toBe('rgb(253, 231, 37)');
  });
});

describe('layout and hit testing', () => {
  const layout = computeLayout(476, 130, 10, 4, true);
  it('divides the plot into steps and rows plus the no-data row', () => {
    expect(layout.plotWidth).toBe(476 - 76 - 8);
    expect(layout.cellWidth).toBeCloseTo(39.2, 9);
    expect(layout.cellHeight).toBe(20);
  });
  it('maps points to cells and cells back to points', () => {
    for (const cell of [{ step: 0, row: -1 }, { step: 3, row: 0 }, { step: 9, row: 3 }]) {
      const o = cellOrigin(layout, cell);
      expect(hitTest(layout, o.x + 1, o.y + 1)).toEqual(cell);
    }
  });
  it('is undefined outside the plot', () => {
    expect(hitTest(layout, 10, 50)).toBeUndefined();
    expect(hitTest(layout, 200, 2)).toBeUndefined();
    expect(hitTest(layout, 200, 129)).toBeUndefined();
  });
  it('has no no-data row when it is hidden', () => {
    const l = computeLayout(476, 130, 10, 4, false);
    const o = cellOrigin(l, { step: 0, row: 0 });
    expect(o.y + l.cellHeight).toBeCloseTo(l.top + l.plotHeight, 9);
  });
});

describe('labels', () => {
  const d = buildDensity([{ name: 'a', labels: {}, times: [0], values: [0.5] }, { name: 'b', labels: {}, times: [0], values: [2000] }]);
  it('labels rows by their lower bound in the unit', () => {
    expect(rowLabel(d, -1, 'ops')).toBe('no data');
    expect(rowLabel(d, 0, 'ops')).toBe('0');
    expect(rowLabel(d, 1, 'none')).toBe('0.100');
    expect(rowRange(d, 5, 'none')).toBe('[1000, 10000)');
    expect(rowRange(d, 0, 'none')).toBe('exactly 0');
    expect(formatValue(NaN, 'ops')).toBe('NaN');
  });
});
