import { createTheme } from '@grafana/data';
import { createTheme as createTheme11 } from 'grafana11-data';
import { LEVELS, MIN_CONTRAST, contrastRatio, logLevel, palette, parseColor } from './colors';
import { buildDensity } from './density';
import { formatValue, rowLabel, rowRange } from './labels';
import { MARGIN, cellOrigin, computeLayout, hitTest } from './layout';

describe('logLevel', () => {
  it('maps counts on a log scale, a count of 1 to level 0', () => {
    expect(logLevel(0, 100)).toBe(-1);
    expect(logLevel(1, 100)).toBe(0);
    expect(logLevel(100, 100)).toBe(LEVELS - 1);
    expect(logLevel(10, 100)).toBe(Math.round(0.5 * (LEVELS - 1)));
    expect(logLevel(1, 1)).toBe(0);
  });
});

describe('colour scale against the panel background (WCAG contrast)', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio(parseColor('#ffffff'), parseColor('#000000'))).toBeCloseTo(21, 6);
    expect(contrastRatio(parseColor('#777'), parseColor('rgb(119, 119, 119)'))).toBe(1);
    // WCAG's own example pair: #767676 on white is just above 4.5:1.
    expect(contrastRatio(parseColor('#767676'), parseColor('#fff'))).toBeCloseTo(4.54, 2);
  });
  // Panel backgrounds of the build's Grafana packages and of Grafana 11.0.0's (the oldest supported).
  const background = (mode: 'dark' | 'light', v11: boolean) => (v11 ? createTheme11({ colors: { mode } }) : createTheme({ colors: { mode } })).colors.background.primary;
  const backgrounds = [false, true].flatMap((v11) => (['dark', 'light'] as const).map((mode) => [mode, background(mode, v11)] as const));
  it('the old scale drew a lone series (count 1) nearly invisible on the dark background', () => {
    const dark = backgrounds[0]?.[1] as string;
    expect(contrastRatio(parseColor('#440154'), parseColor(dark))).toBeLessThan(1.6);
  });
  it.each(backgrounds.flatMap(([mode, bg]) => (['viridis', 'oranges', 'blues'] as const).map((scheme) => [mode, scheme, bg] as const)))(
    '%s theme, %s, on %s (Grafana 13.1 and 11.0 backgrounds): the rarest cell (count 1, e.g. one job alone at the top rate) contrasts most, every level at least 3:1',
    (_mode, scheme, bg) => {
      const p = palette(scheme, bg);
      expect(p).toHaveLength(LEVELS);
      const ratios = p.map((c) => contrastRatio(parseColor(c), parseColor(bg)));
      const rare = ratios[logLevel(1, 1313)] as number;
      expect(rare).toBeGreaterThanOrEqual(Math.max(...ratios) - 1e-9);
      expect(rare).toBeGreaterThanOrEqual(4.5);
      expect(Math.min(...ratios)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    },
  );
  it('orients viridis by theme: yellow for rare cells on dark, violet on light', () => {
    const [dark, light] = backgrounds.slice(0, 2).map(([, bg]) => palette('viridis', bg));
    expect(dark?.[0]).toBe('rgb(253, 231, 37)');
    expect(light?.[0]).toBe('rgb(68, 1, 84)');
  });
});

describe('layout and hit testing', () => {
  const layout = computeLayout(476, 130, 10, 4, true);
  it('divides the plot into steps and rows plus the no-data row', () => {
    expect(layout.plotWidth).toBe(476 - MARGIN.left - 8);
    expect(layout.cellWidth).toBeCloseTo((476 - MARGIN.left - 8) / 10, 9);
    expect(layout.cellHeight).toBeCloseTo((130 - MARGIN.top - MARGIN.bottom) / 5, 9);
  });
  it('maps points to cells and cells back to points', () => {
    for (const cell of [
      { step: 0, row: -1 },
      { step: 3, row: 0 },
      { step: 9, row: 3 },
    ]) {
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
  const d = buildDensity([
    { name: 'a', labels: {}, times: [0], values: [0.5] },
    { name: 'b', labels: {}, times: [0], values: [2000] },
  ]);
  it('labels rows by their lower bound in the unit', () => {
    expect(rowLabel(d, -1, 'ops')).toBe('no data');
    expect(rowLabel(d, 0, 'ops')).toBe('0');
    expect(rowLabel(d, 1, 'none')).toBe('0.100');
    expect(rowRange(d, 5, 'none')).toBe('[1000, 10000)');
    expect(rowRange(d, 0, 'none')).toBe('exactly 0');
    expect(formatValue(NaN, 'ops')).toBe('NaN');
  });
});
