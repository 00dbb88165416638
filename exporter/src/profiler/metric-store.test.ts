import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyCounters, slot } from './counters.js';
import { JobSlots } from './job-slots.js';
import { CappedLabels, NETWORK_MOUNT, OTHER_MOUNT, ProfilerMetricStore } from './metric-store.js';
import type { ProcessIdentity } from './process-table.js';
import { hasControlChars } from '../labels/control-chars.js';
import { processRecord } from '../../../test/helpers/profiler-records.js';

const id: ProcessIdentity = { key: '1/1', pid: 1, uid: 1000, gid: 1000, jobid: '42', exe: 'x' };

function oneRead(): Float64Array {
  const inc = emptyCounters();
  inc[slot.calls(0, 2)] = 1;
  return inc;
}

/** One 10-byte call of the first call and class: one call in a reason series (the program label tests). */
function smallRead(): Float64Array {
  const inc = emptyCounters();
  inc[slot.calls(0, 0)] = 1;
  inc[slot.sizedCalls(0, 0)] = 1;
  inc[slot.sizedBytes(0, 0)] = 10;
  return inc;
}

test('a process naming 10,000 made-up mounts gets at most max-mounts mount labels; the rest is folded into mount="_other" and counted', () => {
  const store = new ProfilerMetricStore(new JobSlots(10), () => 0, new CappedLabels(4));
  for (let i = 0; i < 10_000; i++) store.mountDelta(id, { path: `/fake/${i}`, fstype: 'x', fsname: 'y' }, oneRead());
  const mounts = new Set([...store.calls.values.values()].map((e) => e.labels[2]));
  assert.equal(mounts.size, 5);
  assert.ok(mounts.has(OTHER_MOUNT));
  assert.equal(store.foldedMounts, 10_000 - 4);
  // totals stay true
  const total = [...store.calls.values.values()].reduce((sum, e) => sum + e.value, 0);
  assert.equal(total, 10_000);
  // a mount already labelled keeps its label
  store.mountDelta(id, { path: '/fake/0', fstype: 'x', fsname: 'y' }, oneRead());
  assert.equal(store.foldedMounts, 10_000 - 4);
});

test('the mount allowance is per job and goes with the job when it expires', () => {
  let now = 0;
  const store = new ProfilerMetricStore(new JobSlots(10), () => now, new CappedLabels(1));
  store.mountDelta(id, { path: '/a', fstype: 'x', fsname: 'y' }, oneRead());
  store.mountDelta({ ...id, jobid: '43' }, { path: '/b', fstype: 'x', fsname: 'y' }, oneRead());
  assert.equal(store.foldedMounts, 0);
  now = 10_000;
  store.maintain(1000);
  store.mountDelta(id, { path: '/c', fstype: 'x', fsname: 'y' }, oneRead());
  assert.equal(store.foldedMounts, 0, 'job 42 expired: it starts with a fresh allowance');
});

test("once the kernel names a job's owner, the other users' series of that job go, and only those", () => {
  // The squatter's two jobs each keep a slot (its share of unverified slots is not what is tested here).
  const store = new ProfilerMetricStore(new JobSlots(10, { maxUnverifiedPerUser: 2 }), () => 0);
  const squatter: ProcessIdentity = { ...id, uid: 2001 };
  store.mountDelta(squatter, { path: '/a', fstype: 'x', fsname: 'y' }, oneRead());
  store.mountDelta(id, { path: '/a', fstype: 'x', fsname: 'y' }, oneRead());
  store.mountDelta({ ...squatter, jobid: '43' }, { path: '/a', fstype: 'x', fsname: 'y' }, oneRead());
  store.processDelta(squatter, { runtimeNs: 1e9, droppedFrames: 0, ignoredCalls: 0, networkFolded: 0 });
  store.jobOwnerKnown('42', 1000);
  assert.deepEqual([...store.calls.values.values()].map((e) => `${e.labels[0]}/${e.labels[1]}`).sort(), ['42/1000', '43/2001']);
  assert.equal(store.runtimeSeconds.values.size, 0);
});

test('socket I/O of every peer address goes to the one mount="[network]" label: addresses add no series, totals stay true', () => {
  const store = new ProfilerMetricStore(new JobSlots(10), () => 0, new CappedLabels(2));
  for (let i = 0; i < 100; i++) store.mountDelta(id, { path: `[network] 10.0.0.${i}`, fstype: 'socket', fsname: 'network' }, oneRead());
  store.mountDelta(id, { path: '[network]', fstype: 'socket', fsname: 'network' }, oneRead());
  store.mountDelta(id, { path: '/a', fstype: 'ext4', fsname: '/dev/sda1' }, oneRead());
  store.processDelta(id, { runtimeNs: 0, droppedFrames: 0, ignoredCalls: 0, networkFolded: 7 });
  const byMount = new Map([...store.calls.values.values()].map((e) => [e.labels[2], e.value]));
  assert.deepEqual([...byMount].sort(), [
    ['/a', 1],
    [NETWORK_MOUNT, 101],
  ]);
  assert.equal(store.foldedMounts, 0, "the addresses take one place of the job's mount allowance, not 100");
  assert.equal(store.networkFolded, 7);
});

test('reason series name the program and its role; a job keeps at most max-programs program labels, the rest go to program="_other"', () => {
  const store = new ProfilerMetricStore(new JobSlots(10), () => 0, new CappedLabels(4), new CappedLabels(2));
  for (const exe of ['bash', 'app', 'made-up-1', 'made-up-2']) store.mountDelta({ ...id, exe }, { path: '/a', fstype: 'x', fsname: 'y' }, smallRead());
  const got = [...store.reasonCalls.values.values()].map((e) => [e.labels[5], e.labels[6], e.value]);
  assert.deepEqual(got, [
    ['bash', 'shell', 1],
    ['app', 'job', 1],
    ['_other', '_other', 2],
  ]);
  assert.equal(store.foldedPrograms, 2);
});

test('what MPI_Init and MPI_Finalize did in a rank is the MPI runtime\'s: program="app [mpi-runtime]", role runtime, beside the rank\'s own', () => {
  const store = new ProfilerMetricStore(new JobSlots(10), () => 0);
  const rank = { ...id, exe: 'app' };
  store.mountDelta(rank, { path: '/a', fstype: 'x', fsname: 'y', component: 'mpi-runtime' }, smallRead());
  store.mountDelta(rank, { path: '/a', fstype: 'x', fsname: 'y' }, smallRead());
  store.mountDelta({ ...rank, key: '2/2', pid: 2 }, { path: '/a', fstype: 'x', fsname: 'y', component: 'mpi-runtime' }, smallRead());
  assert.deepEqual(
    [...store.reasonCalls.values.values()].map((e) => [e.labels[5], e.labels[6], e.value]),
    [
      ['app [mpi-runtime]', 'runtime', 2],
      ['app', 'job', 1],
    ],
  );
});

test('the MPI-IO library and SQLite\'s journals inside a process: program="app [mpi-io]" and "python3.11 [sqlite-journal]", role library, beside the program\'s own', () => {
  const store = new ProfilerMetricStore(new JobSlots(10), () => 0);
  store.mountDelta({ ...id, exe: 'app' }, { path: '/a', fstype: 'x', fsname: 'y', component: 'mpi-io' }, smallRead());
  store.mountDelta({ ...id, exe: 'app' }, { path: '/a', fstype: 'x', fsname: 'y' }, smallRead());
  store.mountDelta({ ...id, key: '3/3', pid: 3, exe: 'python3.11' }, { path: '/a', fstype: 'x', fsname: 'y', component: 'sqlite-journal' }, smallRead());
  assert.deepEqual(
    [...store.reasonCalls.values.values()].map((e) => [e.labels[5], e.labels[6], e.value]),
    [
      ['app [mpi-io]', 'library', 1],
      ['app', 'job', 1],
      ['python3.11 [sqlite-journal]', 'library', 1],
    ],
  );
});

test('blind spots per job: processes that used io_uring or mapped files, the mapped bytes, and programs that ran without the profiler', () => {
  let now = 0;
  const store = new ProfilerMetricStore(new JobSlots(10), () => now);
  const zero = { runtimeNs: 0, droppedFrames: 0, ignoredCalls: 0, networkFolded: 0 };
  store.processDelta(id, { ...zero, unseenKinds: ['async_io', 'mmap_io'], unseenMmapBytes: 4096 });
  store.processDelta(id, { ...zero, unseenKinds: [], unseenMmapBytes: 8192 });
  const exec = processRecord({
    header: { version: 2, flags: 2, sequence: 3n, claimedPid: 1, startNs: 1n, nowNs: 1n },
    jobid: '42',
    jobidSource: 'SLURM_JOB_ID',
    execTarget: 'static-tool',
  });
  store.processDelta(id, zero, exec);
  now = 11_000;
  store.maintain(600_000);
  const series = (sums: typeof store.unseenProcesses): string[] => [...sums.values.values()].map((e) => `${e.labels.join('/')}=${e.value}`).sort();
  assert.deepEqual(series(store.unseenProcesses), ['42/1000/async_io=1', '42/1000/mmap_io=1', '42/1000/not_profiled=1']);
  assert.deepEqual(series(store.unseenBytes), ['42/1000/mmap_io=12288']);
});

/** Every series the store holds (all its sums). */
function seriesOf(store: ProfilerMetricStore): number {
  const s = store as unknown as Record<string, { values?: Map<string, unknown> }>;
  return ['calls', 'ioSeconds', 'readBytes', 'writeBytes', 'runtimeSeconds', 'reasonCalls', 'reasonBytes', 'reasonSeconds', 'unseenProcesses', 'unseenBytes'].reduce(
    (n, k) => n + (s[k]?.values?.size ?? 0),
    0,
  );
}

// One uid choosing mount labels: 25 jobs (its quarter of 100 slots) × 40 made-up mounts, every call
// type and class, each path 255 bytes with control characters. Before: the node's series went from
// hundreds to tens of thousands. Now the uid holds at most max-mounts-per-user mount labels in all, the
// node max-mounts-total, and each fold is counted for that uid by reason.
test('one uid cannot push the node from hundreds of series to tens of thousands through the mount labels it chooses', () => {
  // The uid's 25 jobs all have slots, as real jobs of its own would (the identities here carry no
  // kernel proof, whose slots are an eighth of the unverified half per uid: not what is tested here).
  const store = new ProfilerMetricStore(new JobSlots(100, { maxUnverifiedPerUser: 25 }), () => 0, new CappedLabels(16, { maxPerUser: 32, maxTotal: 256 }));
  const everyCall = (): Float64Array => {
    const inc = emptyCounters();
    for (let c = 0; c < 13; c++) for (let k = 0; k < 3; k++) inc[slot.calls(c, k)] = 1;
    return inc;
  };
  // The honest node: 4 users, 2 jobs each, 3 mounts each.
  for (let u = 0; u < 4; u++)
    for (let j = 0; j < 2; j++) for (const path of ['/home', '/scratch', '/tmp']) store.mountDelta({ ...id, uid: 1000 + u, jobid: `${u}${j}` }, { path, fstype: 'lustre', fsname: 'fs' }, everyCall());
  const honest = seriesOf(store);
  const perMount = honest / 24; // the series one (job, mount) label pair has with every call type and class
  assert.ok(Number.isInteger(perMount) && honest < 2000, `honest node: ${honest} series`);
  const attacker: ProcessIdentity = { ...id, uid: 2000 };
  let frames = 0;
  for (let j = 0; j < 25; j++)
    for (let m = 0; m < 40; m++, frames++) {
      const path = `/x\u001b]52;c;${j}/${m}/`.padEnd(255, 'A');
      store.mountDelta({ ...attacker, jobid: `9${j}` }, { path, fstype: 'x', fsname: 'y' }, everyCall());
    }
  const after = seriesOf(store);
  const attackerMounts = new Set([...store.calls.values.values()].filter((e) => e.labels[1] === '2000' && e.labels[2] !== OTHER_MOUNT).map((e) => `${e.labels[0]} ${e.labels[2]}`));
  assert.equal(attackerMounts.size, 32, "the uid's budget of mount labels");
  // Its labels: 16 in its first job (the job's own allowance) and 16 in its second; every job also has _other.
  assert.equal(after - honest, (32 + 25) * perMount, `before: ${(25 * 16 + 25) * perMount} more series`);
  assert.ok(after < 5000, `${after} series (before: ${honest + (25 * 16 + 25) * perMount})`);
  assert.ok(
    [...store.calls.values.values()].every((e) => !hasControlChars(e.labels[2] ?? '')),
    'no control character in a mount label',
  );
  assert.deepEqual(Object.fromEntries(store.foldedMountsByUser.get(2000) ?? []), { job_limit: 2 * 24, user_limit: 23 * 40 });
  assert.equal(store.foldedMounts, frames - 32);
});
