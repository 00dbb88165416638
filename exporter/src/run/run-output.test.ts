// The frames of `jobio run --output` hold the I/O of the run between them: for every key, the calls,
// bytes and duration totals of the periodic records add up to the job-total record's, exactly. The
// case that broke it: the library holds a process's time above its bound back and releases it in
// later snapshots, which may fall in seconds without any call of that kind (the process computes).
// Fed directly, second by second, as the library's snapshots would arrive, without a loaded machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCounters, slot, type Counters } from '../profiler/counters.js';
import { CALL_TYPES } from '../parsers/profiler-wire.js';
import { RunTotals } from '../profiler/run-totals.js';
import type { MountInfo, ProcessIdentity } from '../profiler/process-table.js';
import { resolveRunOptions } from './run-options.js';
import { RunOutput } from './run-output.js';

type Obj = Record<string, any>;
const READ = CALL_TYPES.indexOf('read');
const OPEN = CALL_TYPES.indexOf('open');
const GREEN = 2;
const SMALL = 0;
const ID: ProcessIdentity = { key: 'p1', pid: 1, uid: 1000, gid: 1000, jobid: '', exe: 'python3' };
const MOUNT: MountInfo = { path: '/dev/shm', fstype: 'tmpfs', fsname: 'tmpfs' };

/** One snapshot's increment: reads made and decided, an open only made, and time (ns) on each. */
function increment(f: { reads?: number; readNs?: number; opens?: number; openNs?: number }): Counters {
  const v = emptyCounters();
  const reads = f.reads ?? 0;
  v[slot.calls(READ, GREEN)] = reads;
  v[slot.made(READ)] = reads;
  v[slot.sampled(READ)] = reads;
  v[slot.madeSampled(READ)] = reads;
  v[slot.sizedCalls(0, SMALL)] = reads;
  v[slot.sizedBytes(0, SMALL)] = reads * 4096;
  // a read's time is released to its class (and its size bin), its made time is that class time
  v[slot.timeNs(READ, GREEN)] = f.readNs ?? 0;
  v[slot.sizedTimeNs(0, SMALL)] = f.readNs ?? 0;
  v[slot.madeTimeNs(READ)] = f.readNs ?? 0;
  v[slot.made(OPEN)] = f.opens ?? 0;
  v[slot.madeSampled(OPEN)] = f.opens ?? 0;
  v[slot.madeTimeNs(OPEN)] = f.openNs ?? 0;
  return v;
}

/** Runs the snapshots (one per second, as the flush thread sends them) through RunOutput; its records of the mount. */
function frames(snapshots: readonly Counters[], minSampled: number): Obj[] {
  let nowMs = 0;
  const totals = new RunTotals(0, () => nowMs);
  const lines: string[] = [];
  const io = { ...resolveRunOptions({}, {}).io, minSampled };
  const output = new RunOutput((l) => lines.push(l), { hostname: 'h', jobid: '', jobgroupid: '', timeframeSec: 1, io }, totals, undefined, false);
  snapshots.forEach((v, s) => {
    nowMs = s * 1000 + 980;
    totals.mountDelta(ID, MOUNT, v);
    output.frame(s, s + 1, (s + 1) * 1000, false);
    totals.seal(s + 1);
  });
  nowMs = snapshots.length * 1000;
  output.finish({ startMs: 0, endMs: nowMs }, snapshots.length, undefined);
  const records = lines.map((l) => JSON.parse(l) as Obj).filter((r) => r.type === 'mountpoint');
  // the record of all mounts (one mount here) adds up likewise
  assertFramesAddUp(records.filter((r) => r.mountpoint.path === '*'));
  return records.filter((r) => r.mountpoint.path === MOUNT.path);
}

/** The frames' sums of every key's calls, bytes and duration totals against the job total's. */
function assertFramesAddUp(records: readonly Obj[]): void {
  const job = records.find((r) => r.jobtotal === true) as Obj;
  const periodic = records.filter((r) => r.jobtotal === false);
  const sum = (key: string, measure: string): number => periodic.reduce((a, r) => a + ((r.io[key]?.[measure]?.total as number | undefined) ?? 0), 0);
  const keys = new Set([...Object.keys(job.io as Obj), ...periodic.flatMap((r) => Object.keys(r.io as Obj))]);
  for (const key of keys)
    for (const measure of ['calls', 'bytes', 'duration']) {
      const why = `${key}.${measure}: frames ${JSON.stringify(periodic.map((r) => r.io[key]?.[measure]?.total ?? null))}, job ${JSON.stringify(job.io[key]?.[measure])}`;
      const off = Math.abs(sum(key, measure) - ((job.io[key]?.[measure]?.total as number | undefined) ?? 0));
      // (a frame's duration is its own time rounded to whole µs, so that its measured max/call never exceeds it)
      assert.ok(measure === 'duration' ? off <= periodic.length : off === 0, why);
    }
}

// 20 reads and an open in second 0, their time partly held back and released in seconds 1 and 2,
// which have no call at all; fractions of a µs in every second
const HELD_BACK = [increment({ reads: 20, readNs: 100_400, opens: 1, openNs: 3_300 }), increment({ readNs: 150_400, openNs: 1_400 }), increment({ readNs: 50_400, openNs: 1_400 })];

test('time released in seconds without calls of its kind: the frames add up to the job total, every key, calls, bytes and duration', () => {
  const records = frames(HELD_BACK, 1);
  assertFramesAddUp(records);
  const job = records.find((r) => r.jobtotal === true) as Obj;
  assert.equal(job.io.read_all.duration.total, 301, 'the run: 301.2 µs of reads');
  assert.equal(job.io.open.duration.total, 6, 'the run: 6.1 µs of the open');
  // each frame's own time in whole µs (100.4, 150.4, 50.4)
  const periodic = records.filter((r) => r.jobtotal === false);
  assert.deepEqual(
    periodic.map((r) => r.io.read_all.duration.total),
    [100, 150, 50],
  );
  // the seconds of released time show it, with no calls (and no mean per call: there is none)
  const second2 = periodic[2] as Obj;
  assert.deepEqual([second2.io.read_all.calls.total, second2.io.read_all.bytes.total, second2.io.read_all.duration['mean/call'], second2.io.open.calls.total], [0, 0, 0, 0]);
});

test('with the default --min-sampled: the same, the released time shown because the run had timed enough calls of its kind', () => {
  const records = frames(HELD_BACK, 10);
  assertFramesAddUp(records);
  const periodic = records.filter((r) => r.jobtotal === false);
  assert.equal(periodic.filter((r) => r.io.read_all?.duration !== undefined).length, 3);
  // the one open, timed: too few for a duration, in its frame, the later ones and the job total
  assert.ok(records.every((r) => r.io.open?.duration === undefined));
});
