import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProcessRecord } from '../parsers/profiler-record.js';
import { FLAG_EXEC } from '../parsers/profiler-wire.js';
import { UnprofiledTracker } from './unprofiled.js';
import { processRecord } from '../../../test/helpers/profiler-records.js';

function frame(sequence: number, start: bigint, opts: { exec?: string; spawned?: { pid: number; name: string }[]; spawnedTotal?: number } = {}): ProcessRecord {
  return processRecord({
    header: { version: 2, flags: opts.exec !== undefined ? FLAG_EXEC : 0, sequence: BigInt(sequence), claimedPid: 0, startNs: start, nowNs: start },
    ...(opts.exec !== undefined ? { execTarget: opts.exec } : {}),
    ...(opts.spawned ? { spawned: opts.spawned, spawnedTotal: opts.spawnedTotal ?? opts.spawned.length } : {}),
  });
}

test('an exec whose image never says hello ran unprofiled; one whose image does, or that failed, did not', () => {
  const t = new UnprofiledTracker<string>(() => 0);
  t.frame('10/1', 10, frame(0, 1n, { exec: 'static-app' }), 'job');
  t.frame('11/1', 11, frame(0, 1n, { exec: 'python3' }), 'job');
  t.frame('11/5', 11, frame(0, 5n), 'job'); // the image of pid 11 said hello
  t.frame('12/1', 12, frame(0, 1n, { exec: 'missing' }), 'job');
  t.frame('12/1', 12, frame(1, 1n), 'job'); // the exec failed: the process went on
  assert.deepEqual(
    t.unprofiled().map((p) => p.name),
    ['static-app'],
  );
  assert.equal(t.sawPid(11), true);
  assert.equal(t.sawPid(99), false);
});

test('spawned children are taken once from the ring, however often the parent repeats it', () => {
  const t = new UnprofiledTracker<string>(() => 0);
  const ring = [{ pid: 20, name: 'st' }];
  t.frame('1/1', 1, frame(0, 1n, { spawned: ring }), 'job');
  t.frame('1/1', 1, frame(1, 1n, { spawned: ring }), 'job');
  assert.equal(t.waiting, 1);
  assert.deepEqual(
    t.unprofiled().map((p) => p.name),
    ['st'],
  );
});

test('the exporter counts each unprofiled program once, after the grace period, in the job of its starter', () => {
  let now = 0;
  const t = new UnprofiledTracker<string>(() => now);
  t.frame('1/1', 1, frame(0, 1n, { exec: 'st' }), 'job-a');
  t.frame('2/1', 2, frame(0, 1n, { spawned: [{ pid: 30, name: 'child' }] }), 'job-b');
  now = 5_000;
  assert.deepEqual(t.settle(10_000), [], 'still within the grace period');
  t.frame('30/7', 30, frame(0, 7n), 'job-b'); // the child said hello
  now = 12_000;
  assert.deepEqual(t.settle(10_000), [{ name: 'st', owner: 'job-a' }]);
  assert.deepEqual(t.settle(10_000), [], 'counted once');
  assert.equal(t.waiting, 0);
});

test('pending programs are bounded, a quarter of them per uid: the rest is dropped and counted', () => {
  const t = new UnprofiledTracker<number>(
    () => 0,
    8,
    (uid) => uid,
  );
  for (let i = 0; i < 5; i++) t.frame(`${100 + i}/1`, 100 + i, frame(0, 1n, { exec: 'x' }), 1000);
  assert.equal(t.waiting, 2);
  assert.equal(t.dropped, 3);
  t.frame('200/1', 200, frame(0, 1n, { exec: 'y' }), 1001);
  assert.equal(t.waiting, 3, "one user's flood does not keep another's programs out");
});
