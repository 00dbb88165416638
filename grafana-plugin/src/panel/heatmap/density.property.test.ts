// buildDensity against a naive one written from the definition (docs/architecture.md "Formulas"), on
// random inputs of every shape the fast paths special-case: series on a regular grid with gaps, runs
// that break part-way, duplicate and unsorted timestamps, off-grid times (the union axis), and values
// at and around powers of ten, zeros, nulls, NaN, negatives and infinities.
import { buildDensity } from './density';
import type { HeatSeries } from './series';
import { prng } from '../../test-utils/prng';

/** ⌊log10 v⌋ from the definition: the largest e with 10^e ≤ v, 10^e as the correctly rounded literal. */
function naiveExponent(v: number): number {
  let e = Math.floor(Math.log10(v));
  while (Number(`1e${e + 1}`) <= v) {
    e++;
  }
  while (Number(`1e${e}`) > v) {
    e--;
  }
  return e;
}

/**
 * Per timestamp, how many series have a value in each decade (row 0: zero); a series counts once per
 * timestamp (its first point there); no data is every series without a counted value there.
 */
function naiveDensity(series: HeatSeries[]): { times: number[]; minExponent: number; rows: number; cells: Map<number, number[]>; noData: Map<number, number> } {
  const firsts = series.map((s) => {
    const seen = new Map<number, number | null | undefined>();
    for (let j = 0; j < s.times.length; j++) {
      const t = s.times[j] as number;
      if (!seen.has(t)) {
        seen.set(t, s.values[j]);
      }
    }
    return seen;
  });
  const positive = (v: number | null | undefined): v is number => typeof v === 'number' && v > 0 && v < Infinity;
  const exponents = firsts.flatMap((seen) => [...seen.values()].filter(positive).map(naiveExponent));
  const minExponent = exponents.length > 0 ? Math.min(...exponents) : 0;
  const maxExponent = exponents.length > 0 ? Math.max(...exponents) : minExponent;
  const rows = maxExponent - minExponent + 2;
  const times = [...new Set(firsts.flatMap((seen) => [...seen.keys()]))].sort((x, y) => x - y);
  const cells = new Map(times.map((t) => [t, new Array<number>(rows).fill(0)]));
  const noData = new Map(times.map((t) => [t, series.length]));
  for (const seen of firsts) {
    for (const [t, v] of seen) {
      const row = v === 0 ? 0 : positive(v) ? naiveExponent(v) - minExponent + 1 : -1;
      if (row < 0) {
        continue;
      }
      const cell = cells.get(t) as number[];
      cell[row] = (cell[row] as number) + 1;
      noData.set(t, (noData.get(t) as number) - 1);
    }
  }
  return { times, minExponent, rows, cells, noData };
}

function randomValue(rand: () => number): number | null {
  const r = rand();
  if (r < 0.06) {
    return 0;
  }
  if (r < 0.09) {
    return null;
  }
  if (r < 0.1) {
    return [NaN, -1, -0.5, Infinity, -Infinity][Math.floor(rand() * 5)] as number;
  }
  const e = Math.floor(rand() * 24) - 12;
  if (r < 0.2) {
    return Number(`1e${e}`);
  } // exactly a power of ten
  if (r < 0.25) {
    return Number(`1e${e}`) * (1 - Number.EPSILON);
  } // just below one
  return 10 ** (e + rand());
}

function randomSeries(rand: () => number, index: number, steps: number, stepMs: number): HeatSeries {
  const start = 1_700_000_000_000;
  const first = Math.floor(rand() * steps);
  const last = first + Math.floor(rand() * (steps - first));
  const times: number[] = [];
  const values: Array<number | null> = [];
  const shape = rand();
  for (let c = first; c <= last; c++) {
    if (shape < 0.15 && rand() < 0.2) {
      continue;
    } // gaps
    times.push(start + c * stepMs);
    values.push(randomValue(rand));
    if (shape > 0.9 && rand() < 0.1) {
      times.push(start + c * stepMs); // duplicate timestamp
      values.push(randomValue(rand));
    }
  }
  if (shape > 0.95 && times.length > 2) {
    const k = Math.floor(rand() * (times.length - 1));
    [times[k], times[k + 1]] = [times[k + 1] as number, times[k] as number]; // out of order
  }
  if (shape > 0.85 && shape <= 0.9 && times.length > 0) {
    const k = Math.floor(rand() * times.length);
    times[k] = (times[k] as number) + Math.floor(stepMs / 3); // off the grid
  }
  return { name: `s${index}`, labels: {}, times, values };
}

describe('buildDensity: the same counts as the naive definition on random inputs', () => {
  it.each(Array.from({ length: 300 }, (_, i) => i))('case %i', (caseNo) => {
    const rand = prng(caseNo + 1);
    const steps = 1 + Math.floor(rand() * 40);
    const stepMs = [1000, 15000, 60000][Math.floor(rand() * 3)] as number;
    const series = Array.from({ length: Math.floor(rand() * 30) }, (_, i) => randomSeries(rand, i, steps, stepMs));
    const d = buildDensity(series);
    const want = naiveDensity(series);
    if (want.times.length === 0) {
      expect(d.seriesCount).toBe(series.length);
      expect(Array.from(d.counts).every((c) => c === 0)).toBe(true);
      return;
    }
    expect(d.minExponent).toBe(want.minExponent);
    expect(d.rows).toBe(want.rows);
    // The axis may hold grid columns no series has a point at: all no data there.
    const times = Array.from(d.times);
    expect(want.times.every((t) => times.includes(t))).toBe(true);
    let maxCount = 0;
    times.forEach((t, step) => {
      const got = Array.from(d.counts.slice(step * d.rows, (step + 1) * d.rows));
      maxCount = Math.max(maxCount, ...got);
      expect([t, got]).toEqual([t, want.cells.get(t) ?? new Array<number>(d.rows).fill(0)]);
      expect([t, d.noData[step]]).toEqual([t, want.noData.get(t) ?? series.length]);
    });
    expect(d.maxCount).toBe(maxCount);
  });
});
