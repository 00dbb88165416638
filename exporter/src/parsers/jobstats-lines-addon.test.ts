// The job_stats line addon (native/jobscan): built and loaded, its records of known lines, and every
// line it is not sure of handed back whole (the scanner's own tests compare both ways on any input).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COUNTER_LINE, linesAddon, linesAddonError, OTHER_LINE, RECORD_FIELDS, START_TIME_LINE } from './jobstats-lines-addon.js';

function records(text: string, capacity = 64, start = 0, end?: number): number[][] {
  const addon = linesAddon();
  assert.ok(addon, `addon not loaded: ${linesAddonError()?.message}`);
  const bytes = Buffer.from(text, 'latin1');
  const out = new Float64Array(capacity * RECORD_FIELDS);
  const n = addon.scanLines(bytes, start, end ?? bytes.length, out);
  return Array.from({ length: n }, (_, r) => [...out.subarray(r * RECORD_FIELDS, (r + 1) * RECORD_FIELDS)]);
}

test('job_stats lines addon: loaded by npm run build', () => {
  assert.equal(linesAddonError(), undefined);
});

test('job_stats lines addon: a counter line gives its name, unit, samples and sum; others are handed back', () => {
  const counter = '  write_bytes:     { samples:         861, unit: bytes, min:    24576, max: 16777216, sum:      11025514496, sumsq: 166242808078794752, hist: { 32K: 1, 64K: 1 } }';
  const text = `job_stats:\n- job_id:          7\n\n  \t \n${counter}\r\n  punch: { samples: 1, unit:  reqs }`;
  const at = text.indexOf(counter);
  const punch = text.indexOf('  punch');
  // Records that are not counters carry only kind and line bounds; compare those.
  const got = records(text);
  assert.deepEqual(
    got.map((r) => (r[0] === OTHER_LINE ? r.slice(0, 3) : r.slice(0, 9))),
    [
      [OTHER_LINE, 0, 10],
      [OTHER_LINE, 11, 31],
      [COUNTER_LINE, at, at + counter.length, at + 2, at + 13, text.indexOf('bytes,', at), text.indexOf('bytes,', at) + 5, 861, 11025514496],
      [COUNTER_LINE, punch, text.length, punch + 2, punch + 7, text.indexOf('reqs'), text.indexOf('reqs') + 4, 1, -1],
    ],
  );
});

test('job_stats lines addon: names and units get one number each, for good', () => {
  const text = '  open: { samples: 1, unit: usecs }\n  close: { samples: 2, unit: usecs }\n  open: { samples: 3, unit: reqs }\n  x: { samples: 4 }\n';
  const [open, close, again, bare] = records(text);
  assert.equal(open![9], again![9]);
  assert.notEqual(open![9], close![9]);
  assert.equal(open![10], close![10]);
  assert.notEqual(open![10], again![10]);
  assert.equal(bare![10], -1);
  assert.equal(records(text)[0]![9], open![9], 'the next call numbers the same bytes the same');
  for (const r of [open!, close!, again!]) assert.ok(r[9]! >= 0 && r[10]! >= 0 && r[9] !== r[10]);
  // A name longer than 64 bytes is read but not numbered: garbage must not pin long names for good.
  const [long] = records(`  ${'n'.repeat(65)}: { samples: 5, unit: reqs }\n`);
  assert.deepEqual([long![0], long![7], long![9]], [COUNTER_LINE, 5, -1]);
});

test('job_stats lines addon: lines it is not sure of are handed back whole', () => {
  for (const line of [
    'open: { samples: 1, unit: reqs }', // column 1: a header's place
    '  open: { samples: 1234567890123456, unit: reqs }', // 16 digits: the BigInt path
    '  open: { samples: 1, unit: reqs', // not closed
    '  open: { unit: reqs }', // no samples
    '  open: { samples: 1, unit: reqs } x', // after the brace
    '  open: { samples: 1,\tunit: reqs }', // a tab inside the braces
    '  open: { samples: , unit: reqs }',
    '  open: { samples: 1, hist: { 4K: 1 }',
    '  job_stats: x', // a value after job_stats: malformed, the scanner counts it
    '  - job_id: 5',
  ]) {
    assert.deepEqual(
      records(line).map((r) => r.slice(0, 3)),
      [[OTHER_LINE, 0, line.length]],
      line,
    );
  }
  assert.equal(records('  open: { samples: 999999999999999, unit: reqs }')[0]![7], 999999999999999);
});

test('job_stats lines addon: start_time is read as Number() reads it; lines that change nothing make no record', () => {
  const seconds = (value: string): number[] => records(`  start_time:      ${value} secs.nsecs`).map((r) => (r[0] === START_TIME_LINE ? r[7]! : -r[0]!));
  for (const value of ['1723102025.057286226', '1896000.000000001', '12', '1.', '.5', '0.30000000000000004441', '9007199254740993.5']) {
    assert.deepEqual(seconds(value), [Number(value)], value);
  }
  for (const value of ['', '.', '1.2.3', 'x']) assert.deepEqual(seconds(value), [NaN], JSON.stringify(value));
  assert.deepEqual(records('  snapshot_time:   1723114647.887515895 secs.nsecs\n  elapsed_time:    1.5 secs.nsecs\n\t\n  future_field: 7\n'), []);
});

test('job_stats lines addon: a full output stops after the line of its last record; start and end bound the lines', () => {
  const text = '  a: { samples: 1 }\n\n  b: { samples: 2 }\n  c: { samples: 3 }\n';
  assert.deepEqual(
    records(text, 2).map((r) => r[7]),
    [1, 2],
  );
  const second = text.indexOf('  b');
  assert.deepEqual(
    records(text, 64, second, text.indexOf('\n', second)).map((r) => r[7]),
    [2],
  );
  const addon = linesAddon()!;
  assert.throws(() => addon.scanLines(Buffer.from(text), 0, text.length + 1, new Float64Array(RECORD_FIELDS)), RangeError);
  assert.throws(() => addon.scanLines(Buffer.from(text), 0, text.length, new Float64Array(RECORD_FIELDS - 1)), RangeError);
  assert.throws(() => addon.scanLines(Buffer.from(text), 0, text.length, new Float32Array(RECORD_FIELDS) as unknown as Float64Array), TypeError);
});
