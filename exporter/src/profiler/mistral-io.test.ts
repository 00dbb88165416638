import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES } from '../parsers/profiler-wire.js';
import { iec, ioObject, keyedValues, namedRanges, perSecond, pow2Range, type IoKeyOptions, type SizeBinning } from './mistral-io.js';
import { emptyCounters, slot } from './counters.js';
import { fsHost, isoTimestamp } from './mistral-records.js';

/** jobio's defaults: every key, with durations. */
const IO: IoKeyOptions = {
  read: { enabled: true, duration: true, sized: 'small-medium-large' },
  write: { enabled: true, duration: true, sized: 'small-medium-large' },
  seek: true,
  metadata: 'both',
  metadataDuration: true,
  smallThreshold: 32768,
  largeThreshold: 134217728,
  minSampled: 10,
};

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
    v[slot.timeNs(c, 2)] = calls * 1000;
    v[slot.sampled(c)] = calls;
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
