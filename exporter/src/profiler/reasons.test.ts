import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CALL_TYPES, CLASSES, WIRE_REASONS } from '../parsers/profiler-wire.js';
import { emptyCounters, slot } from './counters.js';
import { hintFor, reasonsOf } from './reasons.js';

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

test('hints carry the figures and the mount', () => {
  const [f] = reasonsOf(
    (() => {
      const v = emptyCounters();
      v[slot.calls(c('write'), k('red'))] = 2000;
      v[slot.sizedCalls(1, 0)] = 2000;
      v[slot.sizedBytes(1, 0)] = 2000 * 512;
      return v;
    })(),
  );
  assert.ok(f);
  assert.equal(
    hintFor(f, '/scratch', 32768),
    '2,000 writes of 512 B on average on /scratch: buffer to at least 1 MiB before writing (a larger buffer, setvbuf for stdio) or use MPI-IO collective writes',
  );
});

test('the hint of opens that moved no byte says that directories opened to be listed are among them', () => {
  // find and other fts walkers open each directory with openat and list it with getdents64, which
  // the profiler does not count: "do not open files you do not read" alone would be wrong for them
  const f = { cls: 'red', reason: 'open_nothing_transferred', calls: 5, bytes: 0, timeNs: 0 } as const;
  assert.equal(
    hintFor(f, '/scratch', 32768),
    '5 opens on /scratch moved no byte: do not open files you do not read or write (to test for existence, stat once and remember it); directories opened to be listed (find, fts) count here too, as their listing is not counted: walk the tree once',
  );
});

test('the hint of seeks to the same offset names the position queries that runtimes make', () => {
  // python3's open() asks lseek(fd, 0, SEEK_CUR) once per file: 1,000 opens of one small file read
  // "2,142 seeks to the offset the file was already at: remove them", seeks the script never wrote
  const f = { cls: 'red', reason: 'zero_seek', calls: 2142, bytes: 0, timeNs: 0 } as const;
  assert.equal(
    hintFor(f, '/scratch', 32768),
    "2,142 seeks on /scratch to the offset the file was already at, position queries (lseek(fd, 0, SEEK_CUR): Python's open(), ftell, tell()) included: remove the ones your code makes, each is a system call; fewer opens mean fewer queries",
  );
});
