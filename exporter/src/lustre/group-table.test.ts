// The two shapes settle() reads groups in: a Map of group objects (mapGroups) and the credit book's
// numbered credits, named and merged by series key (credits.ts CreditBook.name).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapGroups, type GroupTable } from './group-table.js';
import { CreditBook, newJobClass, type JobClass } from './credits.js';
import { OTHER_KEY, SeriesBook, type SeriesGroup, type SeriesLabels } from './series-book.js';
import { mergeDeltas } from './delta-rows.js';
import type { U64 } from '../util/u64.js';

/** Every group as `key activity [deltas] labels`, in the table's order. */
function listed(table: GroupTable): string[] {
  const out: string[] = [];
  table.forEach((g, key) => {
    assert.equal(table.keyOf(g), key);
    assert.equal(table.has(key), true);
    const deltas = Array.from({ length: table.width }, (_, f) => table.deltasOf(g)[f] ?? 0);
    out.push(`${key} ${table.activityOf(g)} [${deltas.join(',')}] ${JSON.stringify(table.labelsOf(g) ?? null)}`);
  });
  return out;
}

test('a Map of groups, numbered in its order, as wide as its widest increments', () => {
  const own: SeriesLabels = { jobid: '7', user: 'erin' };
  const groups = new Map<string, SeriesGroup>([
    ['b', { key: 'b', labels: undefined, deltas: [1], activity: 2 }],
    ['a', { key: 'a', labels: own, deltas: [undefined, 3, 4], activity: 5 }],
  ]);
  const table = mapGroups(groups);
  assert.equal(table.width, 3);
  assert.equal(table.has('c'), false);
  assert.deepEqual(listed(table), ['b 2 [1,0,0] null', `a 5 [0,3,4] ${JSON.stringify(own)}`]);
});

test('credits by number: one per class, merged by key into the first, labels kept only when given', () => {
  const book = new CreditBook();
  const classes = [0, 1, 2, 3, 4].map((i) => newJobClass({ quality: 'correct', jobid: `j${i}`, uid: 1000 }));
  const [c0, c1, c2, c3, c4] = classes as [JobClass, JobClass, JobClass, JobClass, JobClass];
  const big: U64 = 2n ** 40n;
  // Credit numbers in the order of the first increment; a class keeps its number through the scrape.
  assert.equal(book.creditFor(c2), 0);
  assert.equal(book.creditFor(c0), 1);
  assert.equal(book.creditFor(c2), 0);
  assert.equal(book.creditOf(c1), -1, 'no increment, no credit');
  assert.equal(book.creditFor(c1), 2);
  assert.equal(book.creditFor(c3), 3);
  assert.equal(book.creditFor(c4), 4);
  book.add(0, 0, 1);
  book.add(1, 1, 10);
  book.add(2, 0, 100);
  book.add(2, 2, big);
  book.add(3, 1, 7);
  book.add(4, 0, 5);
  book.addActivity(0, 1);
  book.addActivity(1, 10);
  book.addActivity(2, 100);
  book.addActivity(2, 1);
  book.addActivity(4, 3);
  const nul: SeriesLabels = { jobid: 'a\u0000b', user: 'u' };
  // Credits 0 and 2 share a key, as do 3 and 4 (malformed entries: OTHER_KEY).
  book.name(0, 'x', undefined);
  book.name(1, 'y', nul);
  book.name(2, 'x', { jobid: 'ignored', user: 'ignored' });
  book.name(3, OTHER_KEY, undefined);
  book.name(4, OTHER_KEY, undefined);
  assert.equal(book.has('x'), true);
  assert.equal(book.has('z'), false);
  assert.deepEqual(listed(book), ['x 102 [101,0,1099511627776] null', `y 10 [0,10,0] ${JSON.stringify(nul)}`, `${OTHER_KEY} 3 [5,7,0] null`]);
  assert.deepEqual(
    book.classes.map((c) => c.jobid),
    ['j2', 'j0', 'j1', 'j3', 'j4'],
  );

  // The next scrape: every class's credit is gone, numbers start again from 0, nothing named.
  book.clear();
  assert.deepEqual(
    classes.map((c) => book.creditOf(c)),
    [-1, -1, -1, -1, -1],
  );
  assert.equal(book.has('x'), false);
  assert.deepEqual(listed(book), []);
  assert.equal(book.creditFor(c4), 0);
  assert.equal(book.activityOf(0), 0);
  book.add(0, 1, 2);
  book.name(0, 'w', undefined);
  assert.deepEqual(listed(book), ['w 0 [0,2,0] null']);
});

test('a credit book settled over a window (its rows handed over to the waiting jobs) gives the series a Map of the same groups gives', () => {
  const jobs: [string, SeriesLabels][] = [
    ['42\u0000alice\u0000', { jobid: '42', user: 'alice' }],
    ['_none\u0000bob\u0000dd', { jobid: '_none', user: 'bob', process: 'dd' }],
    ['own key', { jobid: '7', user: 'erin' }],
    ['9\u0000carol\u0000', { jobid: '9', user: 'carol' }],
  ];
  // Per read: [job (-1: a malformed entry), field, increment, requests]; job 0 twice in read 1 (two client hosts).
  const reads: [number, number, U64, number][][] = [
    [
      [0, 0, 1, 1],
      [-1, 0, 100, 0],
      [1, 2, 2 ** 32 - 1, 5],
      [0, 1, 3, 2],
      [2, 1, 2n ** 60n, 60],
      [3, 0, 2, 50],
    ],
    [
      [3, 1, 2 ** 40, 1],
      [1, 2, 7, 1],
      [-1, 0, 5, 0],
    ],
    [
      [2, 0, 4, 1],
      [0, 2, 9, 100],
    ],
  ];
  const viaBook = new SeriesBook(2, 3_600_000);
  const viaMap = new SeriesBook(2, 3_600_000);
  const credits = new CreditBook();
  const classes = [...jobs.map((_, i) => newJobClass({ quality: 'correct', jobid: String(i), uid: 1000 })), newJobClass({ quality: 'malformed' })];
  const state = (book: SeriesBook): unknown => [...book.series].map(([key, s]) => [key, s.labels, [...s.values]]);
  for (const [r, read] of [...reads, []].entries()) {
    const turn = { decide: r === reads.length, at: r === reads.length ? 60_000 : 0 };
    credits.clear();
    const groups = new Map<string, SeriesGroup>();
    for (const [j, field, delta, requests] of read) {
      const credit = credits.creditFor(classes.at(j)!);
      credits.add(credit, field, delta);
      credits.addActivity(credit, requests);
      const [key, labels] = j < 0 ? [OTHER_KEY, { jobid: '_other', user: '_other' }] : jobs[j]!;
      const g = groups.get(key) ?? { key, labels, deltas: [], activity: 0 };
      const one: (U64 | undefined)[] = [];
      one[field] = delta;
      mergeDeltas(g.deltas, one);
      g.activity += requests;
      groups.set(key, g);
    }
    credits.classes.forEach((cls, credit) => {
      const j = classes.indexOf(cls);
      const [key, labels] = j === jobs.length ? [OTHER_KEY, undefined] : jobs[j]!;
      credits.name(credit, key, labels);
    });
    viaBook.settle(credits, 1000 * (r + 1), r + 1, false, turn);
    viaMap.settle(groups, 1000 * (r + 1), r + 1, false, turn);
    assert.deepEqual(state(viaBook), state(viaMap), `after read ${r + 1}`);
  }
  // Most active over the window: job 0 (103), job 2 (61); jobs 1 and 3 and the malformed entries in _other.
  assert.deepEqual(state(viaBook), [
    ['42\u0000alice\u0000', { jobid: '42', user: 'alice' }, [1, 3, 9]],
    ['own key', { jobid: '7', user: 'erin' }, [4, 2n ** 60n]],
    [OTHER_KEY, { jobid: '_other', user: '_other' }, [107, 2 ** 40, 2 ** 32 + 6]],
  ]);
  assert.equal(viaBook.foldedJobs, 2);
});
