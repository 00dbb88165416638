import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES, CLASSES, WIRE_REASONS } from '../parsers/profiler-wire.js';
import { emptyCounters, slot, type Counters } from './counters.js';
import { diagnose, diagnosisRecord, GAIN_THRESHOLD, timeError, type DiagnosisInput } from './diagnosis.js';
import { programOf } from './programs.js';
import type { DiagnosisJson } from './diagnosis-schema.js';
import { resolveRunOptions } from '../run/run-options.js';

const c = (name: (typeof CALL_TYPES)[number]): number => CALL_TYPES.indexOf(name);
const RED = CLASSES.indexOf('red');
const info = { path: '/scratch', fstype: 'lustre', fsname: 'fs' };
const NO_UNSEEN = { ioUringSetups: 0, posixAioCalls: 0, libaioIocbs: 0, mmapBytes: 0, ioUringProcesses: 0, posixAioProcesses: 0, libaioProcesses: 0, mmapProcesses: 0 };

/** n failed stats (ENOENT) taking timeNs in all, `sampled` of them timed */
function failedStats(n: number, timeNs: number, sampled: number): Counters {
  const v = emptyCounters();
  v[slot.calls(c('access'), RED)] = n;
  v[slot.timeNs(c('access'), RED)] = timeNs;
  v[slot.sampled(c('access'))] = sampled;
  v[slot.reasonCalls(WIRE_REASONS.indexOf('failed_not_found'))] = n;
  v[slot.reasonTimeNs(WIRE_REASONS.indexOf('failed_not_found'))] = timeNs;
  return v;
}

const input = (programs: DiagnosisInput['programs'], runtimeNs = 1e9, timed = true): DiagnosisInput => ({
  programs,
  unseen: NO_UNSEEN,
  unprofiledExecs: [],
  smallThreshold: 32768,
  runtimeNs,
  timed,
});

test('reasons are per program: the same reason on the same mount by two programs is two entries, each with its hint', () => {
  const d = diagnose(
    input([
      { program: programOf('rsync', '/usr/bin/rsync'), info, total: failedStats(400, 2e8, 400) },
      { program: programOf('app', '/home/u/app'), info, total: failedStats(3, 3e7, 3) },
    ]),
  );
  assert.deepEqual(
    d.reasons.map((r) => [r.program.name, r.program.role, r.reason, r.calls]),
    [
      ['rsync', 'tool', 'failed_not_found', 400],
      ['app', 'job', 'failed_not_found', 3],
    ],
  );
  assert.match(d.reasons[0]?.hint ?? '', /^Rsync on \/scratch: 400 calls failed .*: rsync checks whether each file already exists/);
  assert.match(d.reasons[1]?.hint ?? '', /^Your program \(app\) on \/scratch: 3 calls failed .*: check the paths/);
});

test('share, gain and the order: something to gain first, then by calls (noise in the times cannot reorder)', () => {
  // every call timed: the time is exact (no error bound)
  const big = { program: programOf('app'), info, total: failedStats(10, 5e8, 10) }; // 50 % of the run
  const tiny = { program: programOf('tool-x'), info, total: failedStats(5000, 1e5, 5000) }; // 0.01 %
  const d = diagnose(input([tiny, big]));
  assert.deepEqual(
    d.reasons.map((r) => [r.program.name, r.share, r.gain, r.timeErrorNs]),
    [
      ['app', 0.5, true, 0],
      ['tool-x', 0.0001, false, 0],
    ],
  );
  assert.match(d.reasons[1]?.hint ?? '', /0\.01 % of the run time, nothing to gain$/);
  // the same calls with other times (noise): the same order
  const again = diagnose(
    input([
      { ...tiny, total: failedStats(5000, 2e5, 5000) },
      { ...big, total: failedStats(10, 3e8, 10) },
    ]),
  );
  assert.deepEqual(
    again.reasons.map((r) => r.program.name),
    ['app', 'tool-x'],
  );
  // without reported times there are no shares, and nothing is declared without gain
  const untimed = diagnose(input([tiny, big], 1e9, false));
  assert.deepEqual(
    untimed.reasons.map((r) => [r.program.name, r.share, r.gain]),
    [
      ['tool-x', undefined, true],
      ['app', undefined, true],
    ],
  );
});

test('the time error: 0 with every call timed, 1.96·t·sqrt((1-f)/timed) otherwise; its upper end decides the gain', () => {
  assert.equal(timeError(1e6, 100, 1), 0);
  assert.equal(Math.round(timeError(1e6, 1600, 1 / 16)), Math.round(1.96 * 1e6 * Math.sqrt(15 / 16 / 100)));
  // 40 of 640 calls timed (± 30 %): 0.8 % of the run as estimated (below GAIN_THRESHOLD), but the interval reaches past 1 %
  const d = diagnose(input([{ program: programOf('app'), info, total: failedStats(640, 8e6, 40) }]));
  const [r] = d.reasons;
  assert.ok(r && r.share === 0.008 && r.gain, JSON.stringify(r));
  assert.equal(Math.round(r.timeErrorNs), Math.round(1.96 * 8e6 * Math.sqrt(15 / 16 / 40)));
  // as precise, 0.2 % (± 0.06 %): nothing to gain
  const low = diagnose(input([{ program: programOf('app'), info, total: failedStats(640, 2e6, 40) }])).reasons[0];
  assert.ok(low && low.share === 0.002 && !low.gain, JSON.stringify(low));
});

test("a time resting on a few timed calls gives no share; whether it has anything to gain comes from the mean time of the job's calls", () => {
  // 2 of 32 calls timed: ± 134 % (1.96·sqrt((15/16)/2)); the job's only calls, so their mean is no
  // better: 32 calls at 5 ms / 32 each, up to 11.7 ms of 1 s, something to gain
  const few = diagnose(input([{ program: programOf('app'), info, total: failedStats(32, 5e6, 2) }])).reasons[0];
  assert.ok(few && few.share === undefined && few.gain, JSON.stringify(few));
  assert.ok(few.timeErrorNs > few.timeNs);
  assert.doesNotMatch(few.hint, /nothing to gain/);
  // the same in a run 10 times as long: 1.17 ms of 1 % is below the threshold
  const long = diagnose(input([{ program: programOf('app'), info, total: failedStats(32, 5e6, 2) }], 1e10)).reasons[0];
  assert.ok(long && long.share === undefined && !long.gain && /nothing to gain$/.test(long.hint), JSON.stringify(long));
  // dd: one seek among 80 calls of which 5 were timed (the sampled fraction is that of all the calls:
  // the seek's own 0 of 1 or 1 of 1 says nothing of it). Whether the seek was timed (its time one
  // call's ×16) or not (0), the same verdict: no share, and nothing to gain at the mean time of the
  // job's calls (60 ms for 80 calls in a 3 s run).
  const dd = failedStats(0, 0, 0);
  dd[slot.calls(c('read'), CLASSES.indexOf('green'))] = 40;
  dd[slot.calls(c('write'), CLASSES.indexOf('green'))] = 39;
  dd[slot.timeNs(c('read'), CLASSES.indexOf('green'))] = 2e7;
  dd[slot.timeNs(c('write'), CLASSES.indexOf('green'))] = 4e7;
  dd[slot.sampled(c('read'))] = 3;
  dd[slot.sampled(c('write'))] = 2;
  dd[slot.calls(c('seek'), RED)] = 1;
  dd[slot.reasonCalls(WIRE_REASONS.indexOf('zero_seek'))] = 1;
  for (const seekTimed of [0, 1]) {
    dd[slot.sampled(c('seek'))] = seekTimed;
    dd[slot.timeNs(c('seek'), RED)] = seekTimed * 16 * 2e6; // one timed seek of 2 ms, ×16
    dd[slot.reasonTimeNs(WIRE_REASONS.indexOf('zero_seek'))] = seekTimed * 16 * 2e6;
    const [r] = diagnose(input([{ program: programOf('dd', '/usr/bin/dd'), info, total: dd }], 3e9)).reasons;
    assert.ok(r && r.reason === 'zero_seek' && r.share === undefined && !r.gain && /nothing to gain$/.test(r.hint), JSON.stringify(r));
  }
});

test('the diagnosis record carries the program, share, gain and error bound of each reason (diagnosis-schema.ts)', () => {
  const d = diagnose(input([{ program: programOf('python3.11', '/usr/bin/python3.11'), info, total: failedStats(4, 4e6, 4) }], 2e9));
  const rec = diagnosisRecord(
    {
      hostname: 'h',
      jobid: '7',
      jobgroupid: '',
      timeframeSec: 10,
      // jobio's defaults (run-options.test.ts pins them)
      io: resolveRunOptions({}, {}).io,
    },
    d,
    {
      startMs: 0,
      endMs: 2000,
    },
  ) as unknown as DiagnosisJson & { type: string };
  assert.equal(rec.type, 'diagnosis');
  assert.equal(rec.runtime, 2e6);
  assert.equal(rec.gain_threshold, GAIN_THRESHOLD);
  assert.deepEqual(rec.reasons[0], {
    class: 'red',
    reason: 'failed_not_found',
    mount: '/scratch',
    program: { name: 'python3.11', path: '/usr/bin/python3.11', role: 'job', label: 'your Python code (python3.11)' },
    calls: 4,
    bytes: 0,
    time: 4000,
    time_error: 0,
    share: 0.002,
    gain: false,
    hint: 'Your Python code (python3.11) on /scratch: 4 calls failed with "no such file or directory": 0.2 % of the run time, nothing to gain',
  });
});

test('not_profiled: the processes of another user only counted (beyond those named) add to the count, as one item of the list', () => {
  const d = diagnose({ ...input([]), unprofiledExecs: ['true (run as uid 65534)'], unprofiledUnnamed: 40_000 });
  const entry = d.unseen.find((u) => u.kind === 'not_profiled');
  assert.ok(entry);
  assert.equal(entry.processes, 40_001);
  assert.match(entry.detail, /^40001 process\(es\) ran without the profiler .*: true \(run as uid 65534\), 40000 more run as another user; /);
});

test("a reason's hint knows its mount's file-system type: a tool on tmpfs is not told to move to memory", () => {
  const shm = { path: '/dev/shm', fstype: 'tmpfs', fsname: 'tmpfs' };
  const d = diagnose(input([{ program: programOf('du', '/usr/bin/du'), info: shm, total: failedStats(500, 2e8, 500) }]));
  assert.match(d.reasons[0]?.hint ?? '', /^Du \(GNU coreutils\) on \/dev\/shm: 500 calls failed .*/);
  const stats = emptyCounters();
  stats[slot.calls(c('access'), RED)] = 500;
  stats[slot.timeNs(c('access'), RED)] = 2e8;
  stats[slot.sampled(c('access'))] = 500;
  stats[slot.reasonCalls(WIRE_REASONS.indexOf('stat_unused'))] = 500;
  stats[slot.reasonTimeNs(WIRE_REASONS.indexOf('stat_unused'))] = 2e8;
  const onShm = diagnose(input([{ program: programOf('du', '/usr/bin/du'), info: shm, total: stats }])).reasons[0]?.hint ?? '';
  assert.match(onShm, /^Du \(GNU coreutils\) on \/dev\/shm: 500 stats of paths never opened: du walks the metadata of a tree .*; it already works in memory \(tmpfs\)$/);
  const onLustre = diagnose(input([{ program: programOf('du', '/usr/bin/du'), info, total: stats }])).reasons[0]?.hint ?? '';
  assert.match(onLustre, /each stat is a request to the metadata server$/);
  // a tool that makes files: on a parallel file system, work in memory and copy the result
  const cp = diagnose(input([{ program: programOf('cp', '/usr/bin/cp'), info, total: stats }])).reasons[0]?.hint ?? '';
  assert.match(cp, /let it work on a local disk or in memory/);
  const cpShm = diagnose(input([{ program: programOf('cp', '/usr/bin/cp'), info: shm, total: stats }])).reasons[0]?.hint ?? '';
  assert.match(cpShm, /cp's own way of working: nothing to change in your code; it already works in memory \(tmpfs\)$/);
});
