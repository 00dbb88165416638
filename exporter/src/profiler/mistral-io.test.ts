import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES } from '../parsers/profiler-wire.js';
import { iec, ioObject, keyedValues, namedRanges, perSecond, pow2Range, type IoKeyOptions, type SizeBinning } from './mistral-io.js';
import { addInto, delta, emptyCounters, slot, type Counters } from './counters.js';
import { fsHost, isoTimestamp } from './mistral-records.js';
import { resolveRunOptions } from '../run/run-options.js';

/** jobio's defaults (run-options.test.ts pins them): every key, with durations. */
const IO: IoKeyOptions = resolveRunOptions({}, {}).io;

/** Every call counted by class was also made in the same second, with its time (as a sender before the calls made is decoded). */
function madeAsDecided(v: Counters): Counters {
  for (let c = 0; c < CALL_TYPES.length; c++) {
    v[slot.made(c)] = [0, 1, 2].reduce((n, k) => n + (v[slot.calls(c, k)] ?? 0), 0);
    v[slot.madeTimeNs(c)] = [0, 1, 2].reduce((n, k) => n + (v[slot.timeNs(c, k)] ?? 0), 0);
    v[slot.madeSampled(c)] = v[slot.sampled(c)] ?? 0;
  }
  return v;
}

test('IEC size-range names', () => {
  assert.equal(iec(32768), '32KiB');
  assert.equal(iec(134217728), '128MiB');
  assert.equal(iec(1000), '1000B');
  assert.equal(iec(1536), '1536B');
  assert.deepEqual(namedRanges(32768, 134217728), ['0-32KiB', '32KiB-128MiB', '128MiB+']);
  assert.deepEqual([0, 1, 2, 11, 21].map(pow2Range), ['0-1B', '1B-2B', '2B-4B', '1KiB-2KiB', '1MiB-2MiB']);
  assert.equal(pow2Range(63), '4EiB-8EiB');
});

test('per-second statistics count the quiet seconds as zeros', () => {
  assert.deepEqual(perSecond([4, 2], 4), { total: 6, 'min/s': 0, 'mean/s': 2, 'median/s': 1, 'max/s': 4 });
  assert.deepEqual(perSecond([5], 1), { total: 5, 'min/s': 5, 'mean/s': 5, 'median/s': 5, 'max/s': 5 });
  assert.deepEqual(perSecond([], 3), { total: 0, 'min/s': 0, 'mean/s': 0, 'median/s': 0, 'max/s': 0 });
  assert.deepEqual(perSecond([1, 9, 3], 3), { total: 13, 'min/s': 1, 'mean/s': 4, 'median/s': 3, 'max/s': 9 }, 'whole numbers, as Mistral writes them');
});

test('fshost and timestamps', () => {
  assert.equal(fsHost('10.0.0.1@tcp:/scratch'), '10.0.0.1@tcp');
  assert.equal(fsHost('nfs.example.com:/home'), 'nfs.example.com');
  assert.equal(fsHost('/dev/sda1'), '');
  assert.equal(fsHost('tmpfs'), '');
  assert.match(isoTimestamp(Date.UTC(2023, 8, 19, 12, 38, 20)), /^2023-09-19T\d\d:38:20[+-]\d\d:\d\d$/);
});

test('size binning: the threshold ranges, the powers of two, one aggregate (combined), or both side by side', () => {
  const v = emptyCounters();
  v[slot.sizedCalls(1, 0)] = 40; // 40 writes of 4 KiB: small, and in the 4KiB-8KiB power of two
  v[slot.sizedBytes(1, 0)] = 40 * 4096;
  v[slot.pow2Calls(1, 13)] = 40;
  v[slot.pow2Bytes(1, 13)] = 40 * 4096;
  v[slot.calls(1, 2)] = 40; // (green: the class does not matter here)
  madeAsDecided(v);
  const calls = (sized: SizeBinning): Record<string, number> =>
    Object.fromEntries([...keyedValues(v, { ...IO, write: { ...IO.write, sized } })].filter(([k, kv]) => k.startsWith('write_') && kv.calls > 0).map(([k, kv]) => [k, kv.calls]));
  assert.deepEqual(calls('small-medium-large'), { 'write_0-32KiB': 40, write_all: 40 });
  assert.deepEqual(calls('binary'), { 'write_4KiB-8KiB': 40, write_all: 40 });
  assert.deepEqual(calls('combined'), { write_all: 40 });
  assert.deepEqual(calls('both'), { 'write_0-32KiB': 40, 'write_4KiB-8KiB': 40, write_all: 40 });
});

test('the io keys follow read/write enabled and duration, seek, and the metadata modes', () => {
  const v = emptyCounters();
  const put = (name: string, calls: number): void => {
    const c = CALL_TYPES.indexOf(name as never);
    v[slot.calls(c, 2)] = calls;
    v[slot.made(c)] = calls;
    v[slot.timeNs(c, 2)] = calls * 1000;
    v[slot.sampled(c)] = calls;
    v[slot.madeTimeNs(c)] = calls * 1000;
    v[slot.madeSampled(c)] = calls;
  };
  for (const name of ['read', 'write', 'open', 'create', 'seek', 'close']) put(name, 20);
  v[slot.sizedCalls(0, 0)] = 20;
  v[slot.sizedCalls(1, 0)] = 20;
  const window = { present: [v], seconds: 1, sum: v };
  const shape = (o: IoKeyOptions): Record<string, string[]> => Object.fromEntries(Object.entries(ioObject(window, o)).map(([k, e]) => [k, Object.keys(e).sort()]));
  assert.deepEqual(shape(IO), {
    'read_0-32KiB': ['bytes', 'calls', 'duration'],
    read_all: ['bytes', 'calls', 'duration'],
    'write_0-32KiB': ['bytes', 'calls', 'duration'],
    write_all: ['bytes', 'calls', 'duration'],
    open: ['calls', 'duration'],
    create: ['calls', 'duration'],
    seek: ['calls', 'duration'],
    metadata: ['calls', 'duration'],
  });
  const mistral: IoKeyOptions = {
    ...IO,
    read: { enabled: false, duration: true, sized: 'combined' },
    write: { enabled: true, duration: false, sized: 'combined' },
    seek: false,
    metadata: 'combined',
    metadataDuration: false,
  };
  assert.deepEqual(shape(mistral), { write_all: ['bytes', 'calls'], metadata: ['calls'] });
  assert.deepEqual(Object.keys(shape({ ...mistral, metadata: 'separate' })).sort(), ['create', 'open', 'write_all']);
  assert.deepEqual(Object.keys(shape({ ...mistral, metadata: 'no' })), ['write_all']);
  // open 20 + create 20 + close 20: close has no key of its own but counts in metadata
  assert.equal(ioObject(window, mistral)['metadata']?.calls.total, 60);
});

test('max/call: the longest timed call of the frame, merged by the larger over seconds and snapshots, per size bin and call type', () => {
  const open = CALL_TYPES.indexOf('open');
  const close = CALL_TYPES.indexOf('close');
  const write = CALL_TYPES.indexOf('write');
  // one snapshot's increment: 20 small writes (longest 40 µs) and 1 medium one (2.5 ms), 20 opens (longest 7 µs)
  const first = emptyCounters();
  first[slot.calls(write, 0)] = 20;
  first[slot.calls(write, 2)] = 1;
  first[slot.timeNs(write, 0)] = 300_000;
  first[slot.timeNs(write, 2)] = 2_500_000;
  first[slot.sampled(write)] = 21;
  first[slot.sizedCalls(1, 0)] = 20;
  first[slot.sizedBytes(1, 0)] = 20 * 4096;
  first[slot.sizedTimeNs(1, 0)] = 300_000;
  first[slot.sizedCalls(1, 1)] = 1;
  first[slot.sizedBytes(1, 1)] = 1 << 20;
  first[slot.sizedTimeNs(1, 1)] = 2_500_000;
  first[slot.maxSizedNs(1, 0)] = 40_400;
  first[slot.maxSizedNs(1, 1)] = 2_500_000;
  first[slot.maxCallNs(write)] = 2_500_000;
  first[slot.calls(open, 2)] = 20;
  first[slot.timeNs(open, 2)] = 60_000;
  first[slot.sampled(open)] = 20;
  first[slot.maxCallNs(open)] = 7_000;
  // the next second: 10 closes, the longest 12.6 µs; the opens' and writes' maxima are not repeated
  const second = emptyCounters();
  second[slot.calls(close, 2)] = 10;
  second[slot.timeNs(close, 2)] = 50_000;
  second[slot.sampled(close)] = 10;
  second[slot.maxCallNs(close)] = 12_600;
  madeAsDecided(first);
  madeAsDecided(second);
  const sum = emptyCounters();
  addInto(sum, first);
  addInto(sum, second);
  const io = ioObject({ present: [first, second], seconds: 2, sum }, { ...IO, minSampled: 1 });
  const max = (key: string): number | undefined => io[key]?.duration?.['max/call'];
  assert.deepEqual(
    ['write_0-32KiB', 'write_32KiB-128MiB', 'write_all', 'open', 'metadata'].map(max),
    [40, 2500, 2500, 7, 13],
    'µs, whole; write_all the longest write of any size; metadata the longest of its call types',
  );
  // the snapshot after `first` (cumulative counts, its interval's maxima): delta passes the maxima through
  const next = Float64Array.from(sum);
  for (const k of [slot.maxCallNs(write), slot.maxCallNs(open), slot.maxSizedNs(1, 0), slot.maxSizedNs(1, 1)]) next[k] = 0;
  const increment = delta(next, first);
  assert.ok(increment, 'a smaller maximum is no counter decrease');
  assert.deepEqual([increment[slot.maxCallNs(close)], increment[slot.maxCallNs(write)], increment[slot.calls(close, 2)], increment[slot.calls(write, 0)]], [12_600, 0, 10, 0]);
  // a sender without the maxima (version 1 or 2): no max/call, the rest as before
  const old = Float64Array.from(first);
  for (const k of [slot.maxCallNs(write), slot.maxCallNs(open), slot.maxSizedNs(1, 0), slot.maxSizedNs(1, 1)]) old[k] = 0;
  const oldIo = ioObject({ present: [old], seconds: 1, sum: old }, { ...IO, minSampled: 1 });
  assert.equal(oldIo['write_all']?.duration?.['max/call'], undefined);
  assert.equal(oldIo['write_all']?.duration?.['mean/call'], 133);
});

test('an open counts in the second it was made, though its class is decided in a later one (its close)', () => {
  const open = CALL_TYPES.indexOf('open');
  const access = CALL_TYPES.indexOf('access');
  // second 0: 30 opens made (a database and its files, still open) and 5 stats of paths opened later;
  // second 1: nothing; second 2: they are closed, their classes decided (the stats' by the opens)
  const made = emptyCounters();
  made[slot.made(open)] = 30;
  made[slot.made(access)] = 5;
  const quiet = emptyCounters();
  const decided = emptyCounters();
  decided[slot.calls(open, 0)] = 10;
  decided[slot.calls(open, 1)] = 20;
  decided[slot.calls(access, 1)] = 5;
  const sum = emptyCounters();
  for (const v of [made, quiet, decided]) addInto(sum, v);
  const io = ioObject({ present: [made, quiet, decided], seconds: 3, sum }, IO);
  assert.deepEqual(io['open']?.calls, { total: 30, 'min/s': 0, 'mean/s': 10, 'median/s': 0, 'max/s': 30 });
  assert.deepEqual(io['access']?.calls, { total: 5, 'min/s': 0, 'mean/s': 2, 'median/s': 0, 'max/s': 5 });
  assert.equal(io['metadata']?.calls['max/s'], 35, 'the second they were made');
});

test("an open's estimated time counts in the second it was made, its class's time in the second of its close; in all the same", () => {
  const open = CALL_TYPES.indexOf('open');
  // second 0: 16 opens made, 1 of them timed (2 µs, estimated 32 µs); second 2: closed, decided red
  const made = emptyCounters();
  made[slot.made(open)] = 16;
  made[slot.madeTimeNs(open)] = 32_000;
  made[slot.madeSampled(open)] = 1;
  const quiet = emptyCounters();
  const decided = emptyCounters();
  decided[slot.calls(open, 0)] = 16;
  decided[slot.timeNs(open, 0)] = 32_000;
  decided[slot.sampled(open)] = 1;
  const sum = emptyCounters();
  for (const v of [made, quiet, decided]) addInto(sum, v);
  const io = ioObject({ present: [made, quiet, decided], seconds: 3, sum }, { ...IO, minSampled: 1 });
  assert.deepEqual(io['open']?.duration, { total: 32, 'min/s': 0, 'mean/s': 11, 'median/s': 0, 'max/s': 32, 'mean/call': 2 });
  assert.equal(io['metadata']?.duration?.['max/s'], 32, 'the second it was made');
  // a second alone: the one it was made in has the time, the one of its close none
  const alone = (v: Counters): number | undefined => ioObject({ present: [v], seconds: 1, sum: v }, { ...IO, minSampled: 1 })['open']?.duration?.total;
  assert.equal(alone(made), 32);
  assert.equal(alone(decided), undefined, 'no call made in it: no open key');
});
