import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES, CLASSES, HEADER, MOUNT, WIRE_REASONS } from '../parsers/profiler-wire.js';
import { decodeFrame } from '../parsers/profiler-record.js';
import { countersOf, emptyCounters, slot, type Counters } from './counters.js';
import { reasonsOf } from './reasons.js';
import { dumpFrames } from '../../../test/profiler/frame-tool.js';

const c = (name: (typeof CALL_TYPES)[number]): number => CALL_TYPES.indexOf(name);
const k = (name: (typeof CLASSES)[number]): number => CLASSES.indexOf(name);
const w = (name: (typeof WIRE_REASONS)[number]): number => WIRE_REASONS.indexOf(name);

test('reasons: derived from the counts and the library, adding up to the class totals', () => {
  const v = emptyCounters();
  // reads: 3 small successful (in the small bin) + 2 failed (ENOENT); 1 yellow open, 1 red open
  v[slot.calls(c('read'), k('red'))] = 5;
  v[slot.sizedCalls(0, 0)] = 3;
  v[slot.sizedBytes(0, 0)] = 300;
  v[slot.reasonCalls(w('failed_not_found'))] = 2;
  v[slot.calls(c('open'), k('yellow'))] = 1;
  v[slot.calls(c('open'), k('red'))] = 1;
  v[slot.reasonCalls(w('open_nothing_transferred'))] = 1;
  v[slot.calls(c('seek'), k('yellow'))] = 4;
  v[slot.timeNs(c('seek'), k('yellow'))] = 4000;
  const got = reasonsOf(v).map((f) => [f.cls, f.reason, f.calls, f.bytes, f.timeNs]);
  assert.deepEqual(got, [
    ['red', 'small_read', 3, 300, 0],
    ['red', 'failed_not_found', 2, 0, 0],
    ['red', 'open_nothing_transferred', 1, 0, 0],
    ['yellow', 'open_few_bytes', 1, 0, 0],
    ['yellow', 'forward_seek', 4, 0, 4000],
  ]);
  // on the network pseudo mount small transfers are green: no small_read there
  assert.equal(
    reasonsOf(v, true).some((f) => f.reason === 'small_read'),
    false,
  );
});

test('reasons: what a library without reasons (wire version 1) sent is unclassified, so the sums still hold', () => {
  const v = emptyCounters();
  v[slot.calls(c('open'), k('red'))] = 7;
  v[slot.calls(c('access'), k('red'))] = 2;
  v[slot.calls(c('delete'), k('yellow'))] = 1;
  const got = reasonsOf(v).map((f) => [f.cls, f.reason, f.calls]);
  assert.deepEqual(got, [
    ['yellow', 'metadata_change', 1],
    ['red', 'unclassified', 9],
  ]);
});

/**
 * A mount frame of `version` as the library sends it, decoded: reads of one file read whole in
 * blocks of 4 KiB (small) with one failed read; `short` of the small ones got less than they asked
 * for (the library of version 7 counts those green and apart; older ones counted them red).
 */
function readsFrame(version: 6 | 7, short: number): Counters {
  const [, m1] = dumpFrames();
  assert.ok(m1);
  const b = Buffer.alloc(version === 7 ? MOUNT.size : MOUNT.sizeV5);
  m1.copy(b, 0, 0, MOUNT.call); // the header and the names
  b.writeUInt16LE(version, HEADER.version);
  b.writeUInt32LE(b.length, HEADER.length);
  const put = (at: number, n: number): number => b.writeBigUInt64LE(BigInt(n), at);
  const read = MOUNT.call + c('read') * MOUNT.callStatsSize;
  const green = version === 7 ? short : 0; // the short ones, where the library makes them green
  put(read + k('red') * 8, 6 - green + 1); // the small ones, and the failed one
  put(read + k('green') * 8, green + 2);
  put(read + (3 + k('red')) * 8, (6 - green) * 100 + 50); // their time
  put(read + (3 + k('green')) * 8, green * 100 + 2000);
  put(MOUNT.sized, 6); // read, small: calls, bytes, time
  put(MOUNT.sized + 8, 5 * 4096 + 1000);
  put(MOUNT.sized + 16, 600);
  put(MOUNT.sized + 24, 2); // read, medium
  put(MOUNT.reason_calls + w('failed_call') * 8, 1);
  put(MOUNT.reason_time_ns + w('failed_call') * 8, 50);
  if (version === 7) {
    put(MOUNT.short_reads, short);
    put(MOUNT.short_reads + 8, 1000 * short);
    put(MOUNT.short_reads + 16, 100 * short);
  }
  const r = decodeFrame(b);
  assert.ok(r.ok && r.record.kind === 'mount');
  return countersOf(r.record);
}

test('reasons: the small reads that met the end of a file (wire version 7) are not small_read; a version 6 frame still adds up', () => {
  const redSum = (v: Counters): [number, number] =>
    reasonsOf(v)
      .filter((f) => f.cls === 'red')
      .reduce<[number, number]>((s, f) => [s[0] + f.calls, s[1] + f.timeNs], [0, 0]);
  const red = (v: Counters): [number, number] => [v[slot.calls(c('read'), k('red'))] ?? 0, v[slot.timeNs(c('read'), k('red'))] ?? 0];
  const v7 = readsFrame(7, 1);
  assert.deepEqual(
    reasonsOf(v7).map((f) => [f.cls, f.reason, f.calls, f.bytes, f.timeNs]),
    [
      ['red', 'small_read', 5, 5 * 4096, 500],
      ['red', 'failed_call', 1, 0, 50],
    ],
  );
  assert.deepEqual(redSum(v7), red(v7));
  // the same reads from a library that counted the last one red: all six small_read, nothing unclassified
  const v6 = readsFrame(6, 1);
  assert.equal(v6[slot.shortReadCalls], 0);
  assert.deepEqual(
    reasonsOf(v6).map((f) => [f.cls, f.reason, f.calls, f.bytes, f.timeNs]),
    [
      ['red', 'small_read', 6, 5 * 4096 + 1000, 600],
      ['red', 'failed_call', 1, 0, 50],
    ],
  );
  assert.deepEqual(redSum(v6), red(v6));
});

test('reasons: short reads a sender claims beyond the small bin leave small_read at 0, never negative', () => {
  const v = emptyCounters();
  v[slot.sizedCalls(0, 0)] = 2;
  v[slot.sizedBytes(0, 0)] = 100;
  v[slot.shortReadCalls] = 5;
  v[slot.shortReadBytes] = 500;
  assert.equal(
    reasonsOf(v).some((f) => f.reason === 'small_read'),
    false,
  );
});
