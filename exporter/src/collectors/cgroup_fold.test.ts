// The max-jobs folding of the cgroup collector: sticky slots, `_other` monotonic and exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CgroupJobFold } from './cgroup_fold.js';

const job = (jobid: string, user: number, memoryBytes = 10) => ({ jobid, cpu: { user, system: user / 2 }, memoryBytes, memoryPeakBytes: memoryBytes * 2 });

test('jobs beyond max-jobs fold into _other with their whole counters', () => {
  const fold = new CgroupJobFold(2);
  const view = fold.apply([job('1', 5), job('2', 6), job('3', 7), job('4', 8)]);
  assert.deepEqual(
    view.own.map((s) => s.jobid),
    ['1', '2'],
  );
  assert.deepEqual(view.otherCpu, { user: 15, system: 7.5 });
  assert.equal(view.otherMemoryBytes, 20);
  assert.equal(view.otherMemoryPeakBytes, 40);
  assert.equal(view.foldedJobs, 2);
});

test('a folded job stays folded when a slot frees; _other never decreases when folded jobs end', () => {
  const fold = new CgroupJobFold(1);
  fold.apply([job('1', 5), job('2', 7)]);
  let view = fold.apply([job('2', 9)]); // job 1 ended: its slot is free, but job 2 keeps its place
  assert.deepEqual(
    view.own.map((s) => s.jobid),
    [],
  );
  assert.deepEqual(view.otherCpu, { user: 9, system: 4.5 });
  view = fold.apply([job('3', 1)]); // job 2 ended: _other keeps its total, job 3 gets the free slot
  assert.deepEqual(
    view.own.map((s) => s.jobid),
    ['3'],
  );
  assert.deepEqual(view.otherCpu, { user: 9, system: 4.5 });
  assert.equal(view.otherMemoryBytes, 0);
  assert.equal(view.foldedJobs, 0);
});

test('no _other while nothing was ever folded', () => {
  const view = new CgroupJobFold(5).apply([job('1', 1)]);
  assert.equal(view.otherCpu, undefined);
});
