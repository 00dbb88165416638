import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FinishedJobs, type UsageSample } from './cgroup_finished.js';

const job = (jobid: string, user: number, peak: number): UsageSample => ({ jobid, uid: 1000, cpu: { user, system: user / 10 }, memoryBytes: peak / 2, memoryPeakBytes: peak });

test('FinishedJobs: a job gone between samplings keeps its last CPU and peak (no current memory) until the expiry', () => {
  const book = new FinishedJobs<UsageSample>(600_000);
  book.observe([job('7', 1, 100)], 0);
  book.observe([job('7', 2, 300), job('8', 5, 50)], 1000);
  assert.deepEqual(book.finals(), []);
  book.observe([job('8', 6, 50)], 2000); // job 7 ended between 1000 and 2000
  assert.deepEqual(book.finals(), [{ jobid: '7', uid: 1000, cpu: { user: 2, system: 0.2 }, memoryPeakBytes: 300 }]);
  book.observe([], 3000);
  assert.deepEqual(
    book.finals().map((s) => s.jobid),
    ['7', '8'],
  );
  book.observe([], 2000 + 600_000); // 7 ended at 2000: exactly at the expiry, still kept
  assert.deepEqual(
    book.finals().map((s) => s.jobid),
    ['7', '8'],
  );
  book.observe([], 2001 + 600_000);
  assert.deepEqual(
    book.finals().map((s) => s.jobid),
    ['8'],
  );
  book.observe([job('8', 1, 10)], 2002 + 600_000); // the id runs again (requeue): no longer final
  assert.deepEqual(book.finals(), []);
  assert.equal(book.finishedCount, 0);
});

test('FinishedJobs: a sample missing a value (the file vanished mid-read as the job ended) keeps the previous one', () => {
  const book = new FinishedJobs<UsageSample>(600_000);
  book.observe([job('9', 3, 400)], 0);
  assert.deepEqual(book.observe([{ jobid: '9', uid: 1000 }], 1000), [{ jobid: '9', uid: 1000, cpu: { user: 3, system: 0.3 }, memoryPeakBytes: 400 }]);
  book.observe([], 2000);
  assert.deepEqual(book.finals(), [{ jobid: '9', uid: 1000, cpu: { user: 3, system: 0.3 }, memoryPeakBytes: 400 }]);
});
