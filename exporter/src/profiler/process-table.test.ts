import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrameHeader, MountRecord, ProcessRecord, ProfilerRecord } from '../parsers/profiler-record.js';
import { CALL_TYPES, CLASSES, DIRECTIONS, FLAG_FINAL, POW2_BINS, SIZE_BINS } from '../parsers/profiler-wire.js';
import { addInto, emptyCounters, slot, type Counters } from './counters.js';
import { JobVerifier } from './job-verifier.js';
import { fakeProc } from '../../../test/helpers/fake-proc.js';
import { processRecord } from '../../../test/helpers/profiler-records.js';
import { DEFAULT_CEILINGS, SLACK_MS } from './plausibility.js';
import { MAX_MOUNTS_PER_PROCESS, ProcessTable, type AggregatorSink, type Credentials, type ProcessIdentity, type TableOptions } from './process-table.js';

const header = (sequence: number, flags = 0, start = 1000n): FrameHeader => ({ version: 1, flags, sequence: BigInt(sequence), claimedPid: 1, startNs: start, nowNs: start + BigInt(sequence) });

function proc(sequence: number, runtimeNs: number, opts: { jobid?: string; flags?: number; start?: bigint; dropped?: number; mounts?: number } = {}): ProcessRecord {
  return processRecord({
    header: header(sequence, opts.flags, opts.start),
    jobid: opts.jobid ?? '',
    jobidSource: opts.jobid ? 'SLURM_JOB_ID' : '',
    exe: 'app',
    runtimeNs,
    droppedFrames: opts.dropped ?? 0,
    mountCount: opts.mounts ?? 1,
    sampleEvery: 1,
  });
}

function mount(sequence: number, writes: number, opts: { flags?: number; start?: bigint; path?: string; component?: 'mpi-runtime' } = {}): MountRecord {
  return {
    kind: 'mount',
    header: header(sequence, opts.flags, opts.start),
    path: opts.path ?? '/data',
    ...(opts.component ? { component: opts.component } : {}),
    fstype: 'ext4',
    fsname: '/dev/sda1',
    calls: CALL_TYPES.map((_, c) => ({ calls: CLASSES.map((_k, k) => (c === 1 && k === 2 ? writes : 0)), timeNs: CLASSES.map(() => 0), sampled: 0 })),
    sized: DIRECTIONS.map((_, d) => SIZE_BINS.map((_b, b) => (d === 1 && b === 1 ? { calls: writes, bytes: writes * 65536, timeNs: 0 } : { calls: 0, bytes: 0, timeNs: 0 }))),
    pow2Calls: DIRECTIONS.map(() => new Array<number>(POW2_BINS).fill(0)),
    pow2Bytes: DIRECTIONS.map(() => new Array<number>(POW2_BINS).fill(0)),
  };
}

function harness(procfs = fakeProc(), limits: Partial<TableOptions> = {}, cgroupfs?: string) {
  const totals = new Map<string, Counters>();
  const runtime = new Map<string, number>();
  const ended: ProcessIdentity[] = [];
  const rejected: string[] = [];
  const sink: AggregatorSink = {
    mountDelta(id, m, inc) {
      const key = `${id.jobid}|${id.uid}|${m.path}${m.component ? `|${m.component}` : ''}`;
      const t = totals.get(key) ?? emptyCounters();
      addInto(t, inc);
      totals.set(key, t);
    },
    processDelta(id, inc) {
      runtime.set(id.jobid, (runtime.get(id.jobid) ?? 0) + inc.runtimeNs);
    },
    processEnded(id) {
      ended.push(id);
    },
  };
  let now = 0;
  const table = new ProcessTable(
    new JobVerifier(procfs, { cgroupfs }),
    sink,
    (r) => rejected.push(r),
    () => now,
    undefined,
    { procfs, ...limits },
  );
  const writes = (key: string): number => totals.get(key)?.[slot.calls(1, 2)] ?? 0;
  /** One snapshot of a process: its frames in order, all from the same socket credentials. */
  const send = (from: Credentials, ...frames: ProfilerRecord[]): void => {
    for (const frame of frames) table.handle(frame, from);
  };
  return { table, sink, totals, runtime, ended, rejected, writes, send, tick: (ms: number) => (now += ms) };
}

const cred = (pid: number, uid = 1000) => ({ pid, uid, gid: 1000 });

/**
 * A table over `procfs` for the bounds against colluding uids: each job|uid credited with its writes,
 * each rejection listed as reason:uid, its clock set by the test.
 */
function creditingTable(procfs: string, maxPerUser?: number, limits: Partial<TableOptions> = {}) {
  const rejected: string[] = [];
  const credited = new Map<string, number>();
  const sink: AggregatorSink = {
    mountDelta: (id, _m, inc) => void credited.set(`${id.jobid}|${id.uid}`, (credited.get(`${id.jobid}|${id.uid}`) ?? 0) + (inc[slot.calls(1, 2)] ?? 0)),
    processDelta() {},
  };
  const clock = { now: 0 };
  const table = new ProcessTable(
    new JobVerifier(procfs),
    sink,
    (r, uid) => rejected.push(`${r}:${uid}`),
    () => clock.now,
    maxPerUser,
    { procfs, ...limits },
  );
  return { table, rejected, credited, clock };
}

test('cumulative snapshots become increments; repeats and reorders add nothing', () => {
  const h = harness();
  h.send(cred(5), proc(0, 100), mount(1, 10));
  h.send(cred(5), proc(2, 250), mount(3, 25));
  h.table.handle(mount(3, 25), cred(5)); // repeated
  h.table.handle(mount(1, 10), cred(5)); // old
  assert.equal(h.writes('|1000|/data'), 25);
  assert.equal(h.totals.get('|1000|/data')?.[slot.sizedBytes(1, 1)], 25 * 65536);
  assert.equal(h.runtime.get(''), 250);
  assert.deepEqual(h.rejected, ['stale', 'stale']);
});

test('a process that changes user after its first frame: its frames stay its own, under its first uid, and the identity says the new one', () => {
  const h = harness();
  const ids: ProcessIdentity[] = [];
  const processDelta = h.sink.processDelta.bind(h.sink);
  h.sink.processDelta = (id, inc, record) => {
    ids.push(id);
    processDelta(id, inc, record);
  };
  h.send(cred(5, 0), proc(0, 100, { mounts: 0 }));
  h.send(cred(5, 65534), proc(1, 200), mount(2, 10));
  h.send(cred(5, 0), proc(3, 300), mount(4, 12)); // back (a saved set-user-ID): noted again
  assert.equal(h.writes('|0|/data'), 12, 'credited to the process, under its first uid');
  assert.deepEqual(h.rejected, []);
  assert.deepEqual(
    ids.map((id) => [id.uid, id.senderUid]),
    [
      [0, undefined],
      [0, 65534],
      [0, undefined],
    ],
  );
});

test("a process's executable path: /proc's reading when the receiver had one, else the path the process sent if it names the reported program, else none", () => {
  const cases: Array<[string, { exe?: string } | undefined, string | undefined, string]> = [
    ['gone before its first frame was read: its own path', undefined, '/opt/sim/bin/app', '/opt/sim/bin/app'],
    ["/proc read: the kernel's path wins", { exe: '/usr/bin/app' }, '/opt/sim/bin/app', '/usr/bin/app'],
    ["/proc names another program (exec'd since): its own path", { exe: '/usr/bin/other' }, '/opt/sim/bin/app', '/opt/sim/bin/app'],
    ['a sent path of another name', undefined, '/opt/sim/bin/other', ''],
    ['a relative sent path', undefined, 'bin/app', ''],
    ['a sent path with a control character', undefined, '/opt/sim\n/bin/app', ''],
    ['an older library (no path sent)', undefined, undefined, ''],
  ];
  for (const [name, evidence, sent, want] of cases) {
    const h = harness();
    const ids: ProcessIdentity[] = [];
    h.sink.processDelta = (id) => void ids.push(id);
    h.send({ ...cred(5), ...(evidence ? { evidence } : {}) }, { ...proc(0, 100, { mounts: 0 }), ...(sent !== undefined ? { exePath: sent } : {}) });
    assert.equal(ids[0]?.exePath, want, name);
  }
});

test("a mount's program and MPI runtime frames are two cumulative series: neither is taken for a drop of the other", () => {
  const h = harness();
  h.send(cred(5), proc(0, 100, { mounts: 2 }), mount(1, 10), mount(2, 300, { component: 'mpi-runtime' }));
  h.send(cred(5), proc(3, 250, { mounts: 2 }), mount(4, 25), mount(5, 310, { component: 'mpi-runtime' }));
  assert.equal(h.writes('|1000|/data'), 25);
  assert.equal(h.writes('|1000|/data|mpi-runtime'), 310);
  assert.deepEqual(h.rejected, []);
});

test('a counter that goes down within a process is not a reset: rejected, and counting resumes above the highest value; other processes are separate', () => {
  const h = harness();
  h.send(cred(5), proc(0, 10), mount(1, 40));
  h.send(cred(5), proc(2, 20), mount(3, 7)); // went down: no evidence of a new process, nothing added
  h.send(cred(5), proc(4, 30), mount(5, 45)); // +5 over the highest value seen, not +38 over the drop
  h.send(cred(6), proc(0, 10), mount(1, 3)); // another pid: its own entry
  h.send(cred(5), proc(0, 10, { start: 2000n }), mount(1, 5, { start: 2000n })); // same pid, new start (pid reuse / exec)
  assert.equal(h.writes('|1000|/data'), 40 + 5 + 3 + 5);
  assert.deepEqual(h.rejected, ['counter_decrease']);
  assert.equal(h.table.size, 3);
});

test('a sequence of frames going up and down adds only the highest value, however often it drops', () => {
  const h = harness();
  h.table.handle(proc(0, 10, { mounts: 0 }), cred(5));
  for (let i = 1; i <= 20; i++) h.table.handle(mount(i, i % 2 === 1 ? 1000 : 0), cred(5));
  assert.equal(h.writes('|1000|/data'), 1000, 'before: 10 drops counted as 10 resets, 10,000');
  assert.equal(h.rejected.filter((r) => r === 'counter_decrease').length, 10);
});

test('per-frame increments are bounded by what is physically possible in the elapsed time: a forged 1.8e19 adds nothing', () => {
  const h = harness();
  h.send(cred(5), proc(0, 10, { mounts: 0 }), mount(1, 100));
  h.tick(1000);
  h.table.handle(mount(2, 1.8e19), cred(5)); // 1.8e19 writes (and 1.2e24 bytes) in one second
  assert.equal(h.writes('|1000|/data'), 100);
  assert.deepEqual(h.rejected, ['implausible']);
  h.tick(1000);
  h.table.handle(mount(3, 200), cred(5)); // honest again: the difference from the last accepted snapshot
  assert.equal(h.writes('|1000|/data'), 200);
  // Runtime: wall-clock time cannot grow faster than the clock (a forged 1e18 ns is clamped).
  h.table.handle(proc(4, 1e18, { mounts: 0 }), cred(5));
  // Its budget: an age of 60 s assumed (no /proc here), 2 s elapsed since, 10 s slack (run time's).
  assert.equal(h.runtime.get(''), 72e9, "runtime clamped to the process's life");
  assert.deepEqual(h.rejected, ['implausible', 'implausible']);
});

test('a process restarting its counters under a new start time gets no fresh allowance unless /proc shows a new process', () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-fakeproc-'));
  writeFileSync(join(procfs, 'uptime'), '1000.00 1900.00\n');
  mkdirSync(join(procfs, '7'));
  const stat = (ticks: number) => `7 (app) S 1 7 7 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 ${ticks} 10000000 500 18446744073709551615\n`;
  writeFileSync(join(procfs, '7', 'stat'), stat(99_000)); // started at 990 s of uptime: 10 s old
  const h = harness(procfs, { bytesPerSecond: 65536 * 1000 });
  const w = 1000; // 1,000 writes of 64 KiB: at most 1,000 per second under this ceiling
  h.send(cred(7), proc(0, 10, { mounts: 0 }), mount(1, 11 * w)); // 11 s worth, in a process 10 s old (2 s slack): accepted
  assert.equal(h.writes('|1000|/data'), 11 * w);
  // The same process (same kernel start) claims a new start time: a "restart" without evidence.
  h.send(cred(7), proc(0, 10, { start: 9000n, mounts: 0 }), mount(1, 11 * w, { start: 9000n }));
  assert.equal(h.writes('|1000|/data'), 11 * w, 'no fresh budget: 11 s worth more in no time is implausible (before: counted again)');
  assert.deepEqual(h.rejected, ['implausible']);
  // A new process with the same pid (the kernel's start time changed): a real restart from zero.
  writeFileSync(join(procfs, '7', 'stat'), stat(99_900));
  writeFileSync(join(procfs, 'uptime'), '1009.00 1900.00\n');
  h.send(cred(7), proc(0, 10, { start: 9500n, mounts: 0 }), mount(1, 0.5 * w, { start: 9500n }));
  assert.equal(h.writes('|1000|/data'), 11.5 * w);
});

// A process 20 s old by the kernel's clock is credited at most its age (plus the clock slack) at the
// per-process bytes ceiling, to the byte: never 2.1 TB (before: 100 GB/s and 10 s of slack let it
// have 3 TB).
test('a 20 s old process is credited at most (20 s + slack) x the per-process bytes ceiling, exactly', () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-fakeproc-'));
  writeFileSync(join(procfs, 'uptime'), '1000.00 1900.00\n');
  mkdirSync(join(procfs, '9'));
  writeFileSync(join(procfs, '9', 'stat'), '9 (app) S 1 9 9 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 1 0 98000 10000000 500 18446744073709551615\n'); // started at 980 s
  const h = harness(procfs);
  const perWrite = 65536;
  const tb21 = Math.ceil(2.1e12 / perWrite);
  h.send(cred(9), proc(0, 10, { mounts: 0 }), mount(1, tb21));
  assert.equal(h.writes('|1000|/data'), 0, '2.1 TB from a 20 s old process');
  assert.deepEqual(h.rejected, ['implausible']);
  // The most it can have: floor(ceiling x (20 s + slack) / 64 KiB) writes of 64 KiB.
  const most = Math.floor((DEFAULT_CEILINGS.bytesPerSecond * (20_000 + SLACK_MS)) / 1000 / perWrite);
  assert.equal(most, Math.floor((25e9 * 22) / perWrite), 'the ceiling is 25 GB/s per process, the slack 2 s');
  h.send(cred(9), mount(2, most + 1));
  assert.equal(h.writes('|1000|/data'), 0, 'one write of 64 KiB beyond the budget');
  h.send(cred(9), mount(3, most));
  assert.equal(h.writes('|1000|/data'), most);
  h.send(cred(9), mount(4, most + 1));
  assert.equal(h.writes('|1000|/data'), most, 'the budget is used up: nothing more without time passing');
  h.tick(1000);
  h.send(cred(9), mount(5, most + 1));
  assert.equal(h.writes('|1000|/data'), most + 1, 'a second later, one more write fits');
  assert.deepEqual(h.rejected, ['implausible', 'implausible', 'implausible']);
  rmSync(procfs, { recursive: true, force: true });
});

test('final snapshots end the process; a mount frame without its process is rejected', () => {
  const h = harness();
  h.table.handle(mount(1, 10), cred(8));
  assert.deepEqual(h.rejected, ['no_process']);
  h.table.handle(proc(0, 10, { flags: FLAG_FINAL }), cred(7));
  assert.equal(h.table.size, 1, 'waits for its mount frames');
  h.table.handle(mount(1, 10, { flags: FLAG_FINAL }), cred(7));
  assert.equal(h.table.size, 0);
  assert.equal(h.ended.length, 1);
  assert.equal(h.writes('|1000|/data'), 10);
});

test('a job claim contradicted by the process is rejected with all its frames; uid comes from the credentials', () => {
  const h = harness();
  // pid 99 does not exist in the fake procfs and nobody of uid 1001 proved membership of job 42.
  h.send(cred(99, 1001), proc(0, 10, { jobid: '42' }), mount(1, 4));
  assert.equal(h.writes('42|1001|/data'), 0);
  assert.deepEqual(h.rejected, [], 'held for the grace period');
  h.tick(10_001);
  h.table.expire(600_000);
  assert.deepEqual(h.rejected, ['unverified_job', 'unverified_job']);
});

test("user A cannot write into job B with a process gone before B is seen; B's own short processes can", () => {
  const h = harness(fakeProc({ 70: { environ: 'SLURM_JOB_ID=9\0' } }));
  h.send(cred(80, 1001), proc(0, 10, { jobid: '9', flags: FLAG_FINAL }), mount(1, 50, { flags: FLAG_FINAL })); // A: pid 80 already exited
  h.tick(10_001);
  h.table.expire(600_000); // A's grace ends: nobody of uid 1001 proved a claim on job 9
  assert.deepEqual(h.rejected, ['unverified_job', 'unverified_job']);
  h.table.handle(proc(0, 10, { jobid: '9', mounts: 0 }), cred(70, 1000)); // B's batch shell, alive: verified
  h.table.handle(proc(1, 20, { jobid: '9', mounts: 0 }), cred(71, 1000)); // B's short process, already gone
  h.send(cred(72, 1000), proc(0, 20, { jobid: '9', flags: FLAG_FINAL }), mount(1, 6, { flags: FLAG_FINAL }));
  assert.equal(h.writes('9|1000|/data'), 6);
  assert.equal(h.writes('9|1001|/data'), 0);
  assert.deepEqual(h.rejected, ['unverified_job', 'unverified_job']);
});

test("expiry prunes the verifier's job owners to the jobs still known", () => {
  const procfs = fakeProc({ 70: { environ: 'SLURM_JOB_ID=9\0', cgroup: '0::/system.slice/slurmstepd.scope/job_9/step_batch\n' } });
  const verifier = new JobVerifier(procfs);
  const rejected: string[] = [];
  let now = 0;
  const sink: AggregatorSink = { mountDelta() {}, processDelta() {} };
  const table = new ProcessTable(
    verifier,
    sink,
    (r) => rejected.push(r),
    () => now,
  );
  table.handle(proc(0, 10, { jobid: '9', mounts: 0 }), cred(70, 1000));
  assert.equal(verifier.ownedJobs, 1);
  now += 1000;
  table.expire(5000);
  assert.equal(verifier.ownedJobs, 1, 'the shell is still known');
  now += 10_000;
  table.expire(5000);
  assert.equal(verifier.ownedJobs, 0);
  table.handle(proc(0, 10, { jobid: '9', mounts: 0 }), cred(71, 1000)); // gone, and the job forgotten
  now += 10_001;
  table.expire(600_000);
  assert.deepEqual(rejected, ['unverified_job']);
});

test('a process whose environment names another job has every frame rejected', () => {
  const h = harness(fakeProc({ 50: { environ: 'SLURM_JOB_ID=1\0' } }));
  h.send(cred(50, 1002), proc(0, 10, { jobid: '2' }), mount(1, 4));
  h.send(cred(50, 1002), proc(2, 10, { jobid: '1' }), mount(3, 6)); // the truthful claim is accepted
  assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch']);
  assert.equal(h.writes('2|1002|/data'), 0);
  assert.equal(h.writes('1|1002|/data'), 6);
});

test('a refused claim stays refused after the process is gone from /proc (its final frames are not credited)', () => {
  const procfs = fakeProc({ 60: { cgroup: '4:memory:/slurm_vm/uid_1000/job_8/step_batch/task_0\n' } });
  const h = harness(procfs);
  h.table.handle(proc(0, 10, { jobid: '7' }), cred(60, 1000)); // inside job 8, claims job 7
  rmSync(join(procfs, '60'), { recursive: true });
  h.send(cred(60, 1000), proc(1, 10, { jobid: '7', flags: FLAG_FINAL }), mount(2, 9, { flags: FLAG_FINAL }));
  assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch', 'job_mismatch']);
  assert.equal(h.writes('7|1000|/data'), 0);
  assert.equal(h.table.size, 0);
});

test('idle processes expire', () => {
  const h = harness();
  h.table.handle(proc(0, 10), cred(5));
  h.tick(5000);
  h.table.handle(proc(0, 10), cred(6));
  assert.equal(h.table.expire(3000), 1);
  assert.equal(h.table.size, 1);
});

// Sequence numbering as the C profiler does it (transport.c): the first frame is 0, every frame sent or
// dropped takes the next number, and a process frame's dropped_frames counts the drops before it.

test('a process forgotten after an idle gap resumes from a baseline: no jump', () => {
  const h = harness();
  h.table.handle(proc(0, 100, { mounts: 0 }), cred(5)); // start-up frame
  h.send(cred(5), proc(1, 1000), mount(2, 10));
  assert.equal(h.writes('|1000|/data'), 10);
  h.tick(700_000);
  assert.equal(h.table.expire(600_000), 1);
  // Silent for a while, then writes again: cumulative 30 writes, 2 frames dropped meanwhile.
  h.send(cred(5), proc(5, 5000, { dropped: 2 }), mount(6, 30));
  assert.equal(h.writes('|1000|/data'), 10, 'the resumed snapshot is a baseline, not 30 more');
  assert.equal(h.runtime.get(''), 1000);
  h.send(cred(5), proc(7, 6000, { dropped: 2 }), mount(8, 34));
  assert.equal(h.writes('|1000|/data'), 14, 'then the differences count');
  assert.equal(h.runtime.get(''), 2000);
  assert.deepEqual(h.rejected, []);
});

test('a receiver started while a process is running credits nothing of its history', () => {
  const before = harness();
  before.table.handle(proc(0, 100, { mounts: 0 }), cred(5));
  before.table.handle(proc(1, 1000), cred(5));
  before.table.handle(mount(2, 10), cred(5));
  assert.equal(before.writes('|1000|/data'), 10);
  // Exporter restart: a new table meets the process mid-life; it also has a new mount in between.
  const after = harness();
  after.table.handle(proc(3, 2000, { mounts: 2 }), cred(5));
  after.table.handle(mount(4, 25), cred(5));
  after.table.handle(mount(5, 7, { path: '/scratch' }), cred(5));
  assert.equal(after.writes('|1000|/data'), 0);
  assert.equal(after.writes('|1000|/scratch'), 0);
  assert.equal(after.runtime.get(''), 0);
  after.table.handle(proc(6, 3000, { mounts: 3 }), cred(5));
  after.table.handle(mount(7, 26), cred(5));
  after.table.handle(mount(8, 9, { path: '/scratch' }), cred(5));
  after.table.handle(mount(9, 4, { path: '/home' }), cred(5)); // first activity there: all of it is new
  assert.equal(after.writes('|1000|/data'), 1);
  assert.equal(after.writes('|1000|/scratch'), 2);
  assert.equal(after.writes('|1000|/home'), 4);
  assert.equal(after.runtime.get(''), 1000);
});

test('while the baseline snapshot is incomplete, a mount first seen later is a baseline too', () => {
  const h = harness();
  h.send(cred(5), proc(3, 2000, { mounts: 2 }), mount(4, 25));
  // mount frame 5 (/scratch, 7 writes) lost
  h.send(cred(5), proc(6, 3000, { mounts: 2, dropped: 1 }), mount(7, 26));
  h.table.handle(mount(8, 9, { path: '/scratch' }), cred(5));
  assert.equal(h.writes('|1000|/data'), 1);
  assert.equal(h.writes('|1000|/scratch'), 0, 'its 9 may have been counted before the restart');
  h.send(cred(5), proc(9, 4000, { mounts: 2, dropped: 1 }), mount(10, 26));
  h.table.handle(mount(11, 12, { path: '/scratch' }), cred(5));
  assert.equal(h.writes('|1000|/scratch'), 3);
});

test('a process whose earlier frames were all dropped is credited in full', () => {
  const h = harness();
  // No receiver at start-up: frames 0..3 dropped (dropped_frames 4 at frame 4).
  h.send(cred(5), proc(4, 5000, { dropped: 4 }), mount(5, 30));
  assert.equal(h.writes('|1000|/data'), 30);
  assert.equal(h.runtime.get(''), 5000);
  h.send(cred(5), proc(6, 6000, { dropped: 4 }), mount(7, 31));
  assert.equal(h.writes('|1000|/data'), 31);
  // A short process seen first at its final snapshot, start-up frame dropped.
  h.send(cred(9), proc(1, 700, { dropped: 1, flags: FLAG_FINAL }), mount(2, 5, { flags: FLAG_FINAL }));
  assert.equal(h.writes('|1000|/data'), 36);
  assert.equal(h.table.size, 1);
});

test('one uid holds at most maxPerUser entries: a process inventing start times cannot grow the table', () => {
  const rejected: string[] = [];
  let credited = 0;
  const sink: AggregatorSink = { mountDelta: () => void (credited += 1), processDelta() {} };
  const table = new ProcessTable(
    new JobVerifier(fakeProc()),
    sink,
    (r) => rejected.push(r),
    () => 0,
    3,
  );
  for (let s = 0; s < 5; s++) table.handle(proc(0, 10, { start: BigInt(5000 + s), mounts: 0 }), cred(5, 1000));
  assert.equal(table.size, 3);
  assert.deepEqual(rejected, ['too_many_processes', 'too_many_processes']);
  table.handle(proc(0, 10, { mounts: 0 }), cred(6, 1001)); // another uid is not affected
  assert.equal(table.size, 4);
  table.handle(proc(1, 10, { start: 5000n, flags: FLAG_FINAL, mounts: 0 }), cred(5, 1000)); // one ends: room again
  table.handle(proc(0, 10, { start: 6000n }), cred(5, 1000));
  table.handle(mount(1, 4, { start: 6000n }), cred(5, 1000));
  assert.equal(table.size, 4);
  assert.equal(credited, 1);
  assert.equal(rejected.length, 2);
});

test('a process naming more mount paths than the profiler has slots is capped: extra paths rejected, known ones still counted', () => {
  const h = harness();
  h.table.handle(proc(0, 10, { mounts: MAX_MOUNTS_PER_PROCESS + 2 }), cred(5));
  for (let m = 0; m < MAX_MOUNTS_PER_PROCESS + 2; m++) h.table.handle(mount(1 + m, 1, { path: `/m${m}` }), cred(5));
  assert.equal(h.totals.size, MAX_MOUNTS_PER_PROCESS, 'one counter set per accepted path, no more');
  assert.deepEqual(h.rejected, ['too_many_mounts', 'too_many_mounts']);
  h.table.handle(mount(MAX_MOUNTS_PER_PROCESS + 3, 5, { path: '/m0' }), cred(5)); // a known path keeps counting
  assert.equal(h.writes('|1000|/m0'), 5);
});

test("global bounds: processes and mount entries across all uids, and each uid's share of the mount entries; rejections carry the uid", () => {
  const rejected: string[] = [];
  let credited = 0;
  const sink: AggregatorSink = { mountDelta: () => void (credited += 1), processDelta() {} };
  const limits = { maxProcesses: 5, maxMountEntries: 6, maxMountEntriesPerUser: 4 };
  const table = new ProcessTable(
    new JobVerifier(fakeProc()),
    sink,
    (r, uid) => rejected.push(`${r}:${uid}`),
    () => 0,
    3,
    limits,
  );
  // uid 2001 (below its own cap of 3 processes) and uid 2002: 6 processes asked, 5 fit in the table.
  for (let p = 0; p < 3; p++) table.handle(proc(0, 10, { mounts: 5 }), cred(100 + p, 2001));
  for (let p = 0; p < 3; p++) table.handle(proc(0, 10, { mounts: 3 }), cred(200 + p, 2002));
  assert.equal(table.size, 5);
  assert.deepEqual(rejected, ['process_limit:2002']);
  // 2001 names 5 mounts on one process: its share is 4 mount entries.
  for (let m = 0; m < 5; m++) table.handle(mount(1 + m, 1, { path: `/a${m}` }), cred(100, 2001));
  assert.deepEqual(rejected.slice(1), ['user_mount_limit:2001']);
  // 2002: 2 more entries reach the total of 6; the third is over the global bound.
  for (let m = 0; m < 3; m++) table.handle(mount(1 + m, 1, { path: `/b${m}` }), cred(200, 2002));
  assert.deepEqual(rejected.slice(2), ['mount_limit:2002']);
  assert.equal(table.mountEntries, 6);
  assert.equal(credited, 6);
  // The end of 2001's process frees its entries: 2002 can count its third mount now.
  table.handle(proc(6, 10, { flags: FLAG_FINAL, mounts: 0 }), cred(100, 2001));
  assert.equal(table.mountEntries, 2);
  table.handle(mount(4, 1, { path: '/b2' }), cred(200, 2002));
  assert.equal(credited, 7);
  assert.equal(table.mountEntries, 3);
});

test('colluding uids filling the table cannot starve a kernel-proven job: the least recently heard entry without proof makes room, counted as evicted for its uid', () => {
  // A victim's job 77 in its cgroup; four hostile uids fill their quarters of a 16-entry table and 24
  // mount entries with processes outside any job (no kernel proof).
  const victim = '0::/system.slice/slurmstepd.scope/job_77/step_0\n';
  const procfs = fakeProc({ 500: { cgroup: victim }, 501: { cgroup: victim }, 502: { cgroup: victim } });
  const { table, rejected, credited, clock } = creditingTable(procfs, 4, { maxProcesses: 16, maxMountEntries: 24, maxMountEntriesPerUser: 6 });
  for (const uid of [3001, 3002, 3003, 3004])
    for (let p = 0; p < 4; p++) {
      clock.now += 10;
      table.handle(proc(0, 10, { mounts: 2 }), cred(uid * 10 + p, uid));
      table.handle(mount(1, 1, { path: '/a' }), cred(uid * 10 + p, uid));
      table.handle(mount(2, 1, { path: '/b' }), cred(uid * 10 + p, uid));
    }
  assert.equal(table.size, 16);
  assert.equal(table.mountEntries, 24);
  assert.deepEqual(rejected, [...[3001, 3002, 3003, 3004].flatMap((u) => [`user_mount_limit:${u}`, `user_mount_limit:${u}`])], 'each uid got 6 mount entries');
  rejected.length = 0;
  // A fifth hostile process finds the table full (before: so did the victim's, 21 of 21 writes lost).
  table.handle(proc(0, 10, { mounts: 1 }), cred(30050, 3005));
  assert.deepEqual(rejected, ['process_limit:3005']);
  // The victim's three processes (uid 1000, job 77) each write 7 times on /data: all credited.
  for (const pid of [500, 501, 502]) {
    clock.now += 10;
    table.handle(proc(0, 10, { jobid: '77', mounts: 1 }), cred(pid, 1000));
    table.handle(mount(1, 7), cred(pid, 1000));
  }
  assert.equal(credited.get('77|1000'), 21);
  // Each took the room of the oldest hostile entry: uid 3001's first three processes (6 mount entries,
  // so the mount bound had room again after the first).
  assert.deepEqual(rejected.slice(1), ['evicted:3001', 'evicted:3001', 'evicted:3001']);
  assert.equal(table.size, 16);
  assert.equal(table.mountEntries, 21);
  // An evicted process that speaks again is a new, unproven process: the table is full for it.
  table.handle(proc(3, 20, { mounts: 0 }), cred(30010, 3001));
  assert.deepEqual(rejected.slice(4), ['process_limit:3001']);
  rmSync(procfs, { recursive: true, force: true });
});

test("a job's short-lived processes gone before their claim could be checked are credited once their uid's claim on the job is proven within the grace period; a squatter's are not", () => {
  const procfs = fakeProc({ 70: { cgroup: '0::/system.slice/slurmstepd.scope/job_9/step_batch\n' } });
  const { table, rejected, credited, clock } = creditingTable(procfs);
  // Job 9's user (uid 1000): two short processes, gone before their first frame was read (before:
  // refused as unverified_job, 0.35-0.7 % of writes lost with no attacker). Start-up frame, then the final snapshot.
  for (const [pid, writes] of [
    [80, 6],
    [81, 5],
  ] as const) {
    table.handle(proc(0, 10, { jobid: '9', mounts: 0 }), cred(pid, 1000));
    table.handle(proc(1, 20, { jobid: '9', flags: FLAG_FINAL }), cred(pid, 1000));
    table.handle(mount(2, writes, { flags: FLAG_FINAL }), cred(pid, 1000));
  }
  // A squatter (uid 1001), also gone, claims job 9; a process of uid 1000 claims job 10, never proven.
  table.handle(proc(0, 10, { jobid: '9' }), cred(90, 1001));
  table.handle(mount(1, 50), cred(90, 1001));
  table.handle(proc(0, 10, { jobid: '10' }), cred(84, 1000));
  table.handle(mount(1, 8), cred(84, 1000));
  assert.deepEqual(rejected, []);
  assert.equal(credited.size, 0);
  assert.equal(table.mountEntries, 4, 'held mount frames count in the mount bounds');
  // 3 s later the job's batch shell (alive, in the job's cgroup) proves uid 1000's claim on job 9.
  clock.now += 3000;
  table.handle(proc(0, 10, { jobid: '9' }), cred(70, 1000));
  table.handle(mount(1, 4), cred(70, 1000));
  assert.equal(credited.get('9|1000'), 4 + 6 + 5, "the shell's 4 writes and the short processes' 6 and 5");
  assert.equal(table.size, 3, 'the ended short processes went once credited (shell, squatter, job 10)');
  assert.equal(table.mountEntries, 3);
  // The grace (10 s) ends: the frames held for the squatter and for job 10 are refused, counted per uid.
  clock.now += 7001;
  table.expire(600_000);
  assert.deepEqual(rejected, ['unverified_job:1001', 'unverified_job:1001', 'unverified_job:1000', 'unverified_job:1000']);
  assert.equal(credited.get('9|1001'), undefined);
  assert.equal(credited.get('10|1000'), undefined);
  assert.equal(table.mountEntries, 1, "only the shell's");
  // Their later frames are refused at once; a proof of job 10 now comes too late for what was held.
  table.handle(mount(2, 60), cred(90, 1001));
  assert.deepEqual(rejected.slice(4), ['unverified_job:1001']);
  rmSync(procfs, { recursive: true, force: true });
});

test("job squatting: a squatter accepted on its environment alone is revoked once kernel evidence names the job's owner", () => {
  const h = harness(
    fakeProc({ 60: { environ: 'SLURM_JOB_ID=900\0' }, 61: { environ: 'SLURM_JOB_ID=900\0' }, 62: { environ: 'SLURM_JOB_ID=900\0', cgroup: '0::/system.slice/slurmstepd.scope/job_900/step_0\n' } }),
  );
  const owners: string[] = [];
  h.sink.jobOwnerKnown = (jobid, uid) => void owners.push(`${jobid}/${uid}`);
  // The squatter (uid 1001) claims job 900 first, from its own environment.
  h.send(cred(60, 1001), proc(0, 10, { jobid: '900' }), mount(1, 7));
  // The job's user (uid 1000): a process with only its environment, then the batch step in the job cgroup.
  h.send(cred(61, 1000), proc(0, 10, { jobid: '900' }), mount(1, 20));
  assert.equal(h.writes('900|1000|/data'), 20, 'before: refused as a mismatch, the squatter owning the job');
  h.send(cred(62, 1000), proc(0, 10, { jobid: '900' }), mount(1, 30));
  assert.equal(h.writes('900|1000|/data'), 50);
  assert.deepEqual(h.rejected, []);
  assert.deepEqual(owners, ['900/1000'], "the sink is told at once (it drops the squatter's series of job 900)");
  // The squatter's next snapshot: its claim is revoked, its frames refused, its series to be dropped.
  h.send(cred(60, 1001), proc(2, 20, { jobid: '900' }), mount(3, 1000));
  assert.equal(h.writes('900|1001|/data'), 7);
  assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch']);
});

test("job squatting with job cgroups: no squatter series under the job id before its owner is seen, nor after the owner's processes end while the job runs", () => {
  // Slurm (cgroup v2) made job 900's cgroup on this host; the squatter (uid 1001) sits outside it.
  const cgroupfs = mkdtempSync(join(tmpdir(), 'jobio-cgroupfs-'));
  const jobDir = join(cgroupfs, 'system.slice', 'slurmstepd.scope', 'job_900');
  mkdirSync(join(jobDir, 'step_0'), { recursive: true });
  const outside = '0::/user.slice/user-1001.slice/session-3.scope\n';
  const procfs = fakeProc({
    60: { environ: 'SLURM_JOB_ID=900\0', cgroup: outside },
    61: { environ: 'SLURM_JOB_ID=900\0', cgroup: outside },
    63: { environ: 'SLURM_JOB_ID=900\0', cgroup: outside },
    62: { environ: 'SLURM_JOB_ID=900\0', cgroup: '0::/system.slice/slurmstepd.scope/job_900/step_0\n' },
  });
  const h = harness(procfs, {}, cgroupfs);
  try {
    // Before any of the job's processes is seen: the squatter's claim is refused (was credited 7).
    h.send(cred(60, 1001), proc(0, 10, { jobid: '900' }), mount(1, 7));
    assert.equal(h.writes('900|1001|/data'), 0);
    assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch']);
    // The owner's step (in the cgroup) is credited, then ends; the table forgets it.
    h.send(cred(62, 1000), proc(0, 10, { jobid: '900', flags: FLAG_FINAL }), mount(1, 30, { flags: FLAG_FINAL }));
    assert.equal(h.writes('900|1000|/data'), 30);
    h.tick(20_000);
    h.table.expire(10_000);
    // The job still runs here (its cgroup exists): a new squatter process is refused (it came back before).
    h.send(cred(61, 1001), proc(0, 10, { jobid: '900' }), mount(1, 5));
    assert.equal(h.writes('900|1001|/data'), 0);
    assert.equal(h.rejected.length, 4);
    // The job ends (slurmd removes its cgroup): the owner is forgotten at the next expiry, and a claim
    // on the id stands for its claimant alone again (under its own user), as without job cgroups.
    rmSync(jobDir, { recursive: true });
    h.tick(20_000);
    h.table.expire(10_000);
    h.send(cred(63, 1001), proc(0, 10, { jobid: '900' }), mount(1, 4));
    assert.equal(h.writes('900|1001|/data'), 4);
    assert.equal(h.writes('900|1000|/data'), 30);
    assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch', 'job_mismatch', 'job_mismatch']);
  } finally {
    rmSync(cgroupfs, { recursive: true, force: true });
    rmSync(procfs, { recursive: true, force: true });
  }
});

test('with cgroup v1, the uid directory Slurm made for a job names its owner before any of its processes is seen', () => {
  const cgroupfs = mkdtempSync(join(tmpdir(), 'jobio-cgroupfs-'));
  mkdirSync(join(cgroupfs, 'memory', 'slurm', 'uid_1000', 'job_5', 'step_batch'), { recursive: true });
  mkdirSync(join(cgroupfs, 'memory', 'slurm', 'uid_1002', 'job_6'), { recursive: true });
  const procfs = fakeProc({
    70: { environ: 'SLURM_JOB_ID=6\0', cgroup: '4:memory:/slurm/uid_1002/job_6/step_0\n' }, // another job's process: teaches where Slurm's v1 tree is
    71: { environ: 'SLURM_JOB_ID=5\0', cgroup: '4:memory:/user.slice\n' }, // squatter of job 5
    72: { environ: 'SLURM_JOB_ID=5\0', cgroup: '4:memory:/user.slice\n' }, // job 5's user, a process outside the cgroup (ssh)
  });
  const h = harness(procfs, {}, cgroupfs);
  try {
    h.send(cred(70, 1002), proc(0, 10, { jobid: '6' }), mount(1, 3));
    h.send(cred(71, 1001), proc(0, 10, { jobid: '5' }), mount(1, 7));
    h.send(cred(72, 1000), proc(0, 10, { jobid: '5' }), mount(1, 9));
    assert.equal(h.writes('6|1002|/data'), 3);
    assert.equal(h.writes('5|1001|/data'), 0);
    assert.equal(h.writes('5|1000|/data'), 9, "the owner's own environment claim stands");
    assert.deepEqual(h.rejected, ['job_mismatch', 'job_mismatch']);
  } finally {
    rmSync(cgroupfs, { recursive: true, force: true });
    rmSync(procfs, { recursive: true, force: true });
  }
});

test('a process switching its job claim credits the new job only with what it did after the switch (its history is not counted twice)', () => {
  const h = harness(fakeProc({ 60: { environ: 'SLURM_JOB_ID=900\0' } }));
  h.send(cred(60), proc(0, 10), mount(1, 10));
  h.send(cred(60), proc(2, 20, { jobid: '900' }), mount(3, 15));
  h.send(cred(60), proc(4, 30), mount(5, 18));
  assert.equal(h.writes('|1000|/data'), 13, '10 before the switch, 3 after switching back');
  assert.equal(h.writes('900|1000|/data'), 5, 'before: 15, the whole history again');
});

test("a Flux job's profiler figures go under jobio's spelling of its id (ASCII F58), checked against its sdexec unit", () => {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-proc-flux-'));
  try {
    mkdirSync(join(procfs, '70'));
    writeFileSync(join(procfs, '70/cgroup'), '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n');
    writeFileSync(join(procfs, '70/environ'), 'FLUX_JOB_ID=ƒiFkbMhFM\0');
    mkdirSync(join(procfs, '71'));
    writeFileSync(join(procfs, '71/environ'), 'FLUX_JOB_ID=91088924704768\0');
    const h = harness(procfs);
    h.table.handle({ ...proc(0, 100), jobid: 'ƒiFkbMhFM', jobidSource: 'FLUX_JOB_ID' }, cred(70));
    h.table.handle(mount(1, 10), cred(70));
    // The same job named in decimal by another of its processes (no unit cgroup: its environment is checked).
    h.table.handle({ ...proc(0, 50), jobid: '91088924704768', jobidSource: 'FLUX_JOB_ID' }, cred(71));
    h.table.handle(mount(1, 5), cred(71));
    assert.equal(h.writes('fiFkbMhFM|1000|/data'), 15);
    assert.equal(h.runtime.get('fiFkbMhFM'), 150);
    assert.deepEqual(h.rejected, []);
  } finally {
    rmSync(procfs, { recursive: true, force: true });
  }
});

test('network_folded is cumulative like dropped frames: increments reach the sink, a repeat adds nothing', () => {
  const folded: number[] = [];
  const h = harness();
  const sink = h.sink.processDelta.bind(h.sink);
  h.sink.processDelta = (id, inc, rec) => {
    folded.push(inc.networkFolded);
    sink(id, inc, rec);
  };
  h.table.handle({ ...proc(0, 100), networkFolded: 2 }, cred(5));
  h.table.handle(mount(1, 1), cred(5));
  h.table.handle({ ...proc(2, 200), networkFolded: 5 }, cred(5));
  h.table.handle(mount(3, 2), cred(5));
  h.table.handle({ ...proc(4, 300), networkFolded: 5 }, cred(5));
  assert.deepEqual(folded, [2, 3, 0]);
});
