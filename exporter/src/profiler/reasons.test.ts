import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES, CLASSES, WIRE_REASONS } from '../parsers/profiler-wire.js';
import { emptyCounters, slot } from './counters.js';
import { reasonsOf } from './reasons.js';

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
