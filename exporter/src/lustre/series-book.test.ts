// Jobs waiting for a slot over several reads of a window: at the turn the chosen ones get a series with
// their own labels and the exact sum of their increments, and `_other` gets exactly the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelsInKey, OTHER_KEY, SeriesBook, seriesKey, seriesKeyOf, type SeriesGroup, type SeriesLabels } from './series-book.js';
import type { U64 } from '../util/u64.js';

const group = (key: string, labels: SeriesLabels, deltas: (U64 | undefined)[], activity: number): SeriesGroup => ({ key, labels, deltas, activity });

test('waiting jobs keep their labels and exact increments until the turn, the rest goes to _other', () => {
  const book = new SeriesBook(3, 3_600_000);
  // Labels a key tells, and ones it does not: a key of the caller's own, an empty process, a NUL in a job id.
  const plain: SeriesLabels = { jobid: '42', user: 'alice' };
  const withProcess: SeriesLabels = { jobid: '_none', user: 'bob', process: 'dd' };
  const emptyProcess: SeriesLabels = { jobid: '_none', user: 'carol', process: '' };
  const nul: SeriesLabels = { jobid: 'a\u0000b', user: 'dave' };
  const jobs: [string, SeriesLabels][] = [
    [seriesKey(plain), plain],
    [seriesKey(withProcess), withProcess],
    ['own key', { jobid: '7', user: 'erin' }],
    [seriesKey(emptyProcess), emptyProcess],
    [seriesKey(nul), nul],
  ];
  // Three reads of one window, none deciding: five jobs do not fit three slots, so all wait.
  const reads: [number, (U64 | undefined)[], number][][] = [
    [
      [0, [1, undefined, 2 ** 32 - 1], 1],
      [1, [5], 1],
      [2, [undefined, 9], 1],
      [3, [2], 50],
      [4, [3, 3], 1],
    ],
    [
      [0, [1, 4, 1], 100],
      [2, [undefined, 1, 2n ** 60n], 60],
      [4, [undefined, undefined, 6], 1],
    ],
    [
      [1, [10, 10, 10], 1],
      [3, [undefined, 2 ** 40], 1],
    ],
  ];
  let epoch = 0;
  for (const read of reads) {
    epoch += 1;
    const groups = new Map(read.map(([j, deltas, activity]) => [jobs[j]![0], group(jobs[j]![0], jobs[j]![1], deltas, activity)]));
    groups.set(OTHER_KEY, group(OTHER_KEY, { jobid: '_other', user: '_other' }, [100], 0));
    book.settle(groups, 1000 * epoch, epoch, false, { decide: false, at: 0 });
    assert.equal(book.series.size, 0, 'no slot handed out before the turn');
  }
  epoch += 1;
  book.settle(new Map(), 1000 * epoch, epoch, false, { decide: true, at: 60_000 });
  // Most active: job 0 (102), job 2 (61), job 3 (51).
  const values = (key: string): (U64 | undefined)[] => [...book.series.get(key)!.values];
  assert.deepEqual(book.series.get(jobs[0]![0])!.labels, plain);
  assert.deepEqual(values(jobs[0]![0]), [2, 4, 2 ** 32]);
  assert.deepEqual(book.series.get('own key')!.labels, { jobid: '7', user: 'erin' });
  assert.deepEqual(values('own key'), [undefined, 10, 2n ** 60n]);
  assert.deepEqual(book.series.get(jobs[3]![0])!.labels, emptyProcess);
  assert.deepEqual(values(jobs[3]![0]), [2, 2 ** 40]);
  // _other: the malformed increments of three reads, and jobs 1 and 4.
  assert.deepEqual(values(OTHER_KEY), [300 + 5 + 10 + 3, 10 + 3, 10 + 6]);
  assert.equal(book.foldedJobs, 2);

  // The two folded jobs compete afresh: once slots free up their labels are theirs, not their key's reading.
  const next = new SeriesBook(5, 3_600_000);
  next.settle(new Map(jobs.map(([key, labels]) => [key, group(key, labels, [1], 1)])), 1000, 1, false, { decide: true, at: 0 });
  for (const [key, labels] of jobs) assert.deepEqual(next.series.get(key)!.labels, labels);
});

test('a group without labels is named by its key only when labelsInKey says the key tells them back', () => {
  const cases: [string, string, string | undefined][] = [
    ['42', 'alice', undefined],
    ['_none', 'uid:5000', 'cat'],
    ['_none', 'uid:5000', ''],
    ['4\u00002', 'bob', undefined],
    ['7', 'b\u0000b', undefined],
    ['_none', 'carol', 'a\u0000b'],
  ];
  const book = new SeriesBook(10, 3_600_000);
  const groups = new Map<string, SeriesGroup>();
  for (const [jobid, user, process] of cases) {
    const labels: SeriesLabels = process === undefined ? { jobid, user } : { jobid, user, process };
    const key = seriesKeyOf(jobid, user, process);
    assert.equal(key, seriesKey(labels));
    groups.set(key, { key, labels: labelsInKey(jobid, user, process) ? undefined : labels, deltas: [1], activity: 1 });
  }
  book.settle(groups, 1000, 1, false, { decide: true, at: 0 });
  for (const [jobid, user, process] of cases) {
    const labels = process === undefined ? { jobid, user } : { jobid, user, process };
    assert.deepEqual(book.series.get(seriesKeyOf(jobid, user, process))!.labels, labels);
  }
  // The first two are told by their keys, the rest are not.
  assert.deepEqual(
    cases.map(([j, u, p]) => labelsInKey(j, u, p)),
    [true, true, false, false, false, false],
  );
});
