// The file system's view over time and the job's place in the cluster's density, from fixed samples:
// the intervals add up to the job's totals, and the density is every job's mean rate by decade.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decadeOf, densityOf, ratesOverTime } from './file-system.js';

const series = (target: string, values: [number, number][]) => ({ metric: { target }, values: values.map(([t, v]) => [t, String(v)] as const) });
const iso = (t: number): string => new Date(t * 1000).toISOString();

test('ratesOverTime: equal intervals over the span, each increase spread in proportion, the totals kept', () => {
  const points = ratesOverTime({
    operations: [
      series('fs-MDT0000', [
        [1000, 0],
        [1010, 100],
        [1020, 100],
        [1030, 400],
      ]),
    ],
    readBytes: [],
    writeBytes: [
      series('fs-OST0000', [
        [1005, 0],
        [1025, 3000],
      ]),
    ],
  });
  // two intervals (the MDT series has two increases): 100 in the first (over 15 s), 300 in the second
  assert.deepEqual(points, [
    { start: iso(1000), end: iso(1015), seconds: 15, mdt_operations: 6.667, ost_read_bytes: 0, ost_write_bytes: 100 },
    { start: iso(1015), end: iso(1030), seconds: 15, mdt_operations: 20, ost_read_bytes: 0, ost_write_bytes: 100 },
  ]);
  assert.deepEqual(ratesOverTime({ operations: [series('fs-MDT0000', [[1000, 5]])], readBytes: [], writeBytes: [] }), [], 'no increase, no rates');
});

test('decadeOf and densityOf: the job among every job (not the `_other` fold) by decade of its mean rate', () => {
  assert.deepEqual([decadeOf(0), decadeOf(0.5), decadeOf(1), decadeOf(999.9), decadeOf(1000)], ['zero', '-1', '0', '2', '3']);
  const loads = new Map([
    ['a', 0],
    ['b', 50],
    ['c', 5000],
    ['me', 600],
    ['_other', 1e9],
  ]);
  assert.deepEqual(densityOf(loads, 'me', 10, 'operations'), { measure: 'operations', jobs: 4, decades: { zero: 1, '0': 1, '1': 1, '2': 1 }, rate: 60, decade: '1', busier_than: 0.666667 });
  assert.equal(densityOf(new Map([['me', 10]]), 'me', 10, 'bytes')?.busier_than, 1, 'alone: the busiest');
  assert.equal(densityOf(new Map(), 'me', 10, 'bytes'), undefined);
});
