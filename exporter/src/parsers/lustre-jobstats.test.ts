// Table-driven tests of the job_stats scanner: every shape of every Lustre version, the real captured
// files, malformed lines, and property tests (any input: no throw, no negative value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { JobStatsStream, MAX_LINE_BYTES, parseJobStats, scanJobStats, type JobStatsVisitor } from './lustre-jobstats.js';
import { linesAddon, linesAddonError } from './jobstats-lines-addon.js';

const fixture = (path: string): string => readFileSync(new URL(`../../../test/fixtures/lustre/${path}`, import.meta.url), 'utf8');

const V210 = `job_stats:
- job_id:          24
  snapshot_time:   1510782606
  read_bytes:      { samples:           0, unit: bytes, min:       0, max:       0, sum:               0 }
  write_bytes:     { samples:       64575, unit: bytes, min:    4096, max: 4194304, sum:    215147593728 }
  punch:           { samples:           1, unit:  reqs }
`;

const V214 = `job_stats:
- job_id:          "SLURM_JOB10:0:es18kxe-co-client"
  snapshot_time:   1723114647.887515895 secs.nsecs
  start_time:      1723102025.057286226 secs.nsecs
  elapsed_time:    12622.830229669 secs.nsecs
  read_bytes:      { samples:           0, unit: bytes, min:        0, max:        0, sum:                0, sumsq:                  0, hist: {  } }
  write_bytes:     { samples:         861, unit: bytes, min:    24576, max: 16777216, sum:      11025514496, sumsq: 166242808078794752, hist: { 32K: 1, 64K: 1, 16M: 666 } }
  write:           { samples:         861, unit: usecs, min:       65, max:    34699, sum:          7304967, sumsq:        80724646151 }
`;

// 2.15.0/2.15.1: unindented header with the colon after the padding, boot-relative times.
const V2150 = `job_stats:
- job_id:          1234:5000:node1
snapshot_time   : 1896533.424837288 secs.nsecs
start_time      : 1896000.000000001 secs.nsecs
elapsed_time    : 533.424837287 secs.nsecs
  open:            { samples:          12, unit: usecs, min:       10, max:       90, sum:              300, sumsq:              12000 }
`;

interface Case {
  readonly name: string;
  readonly text: string;
  readonly ids: readonly string[];
  readonly malformed: number;
  readonly check?: (parsed: ReturnType<typeof parseJobStats>) => void;
}

const cases: readonly Case[] = [
  { name: 'empty file (2.17 with no jobs)', text: '', ids: [], malformed: 0 },
  { name: 'bare header (before 2.17 with no jobs)', text: 'job_stats:\n', ids: [], malformed: 0 },
  { name: 'header without final newline', text: 'job_stats:', ids: [], malformed: 0 },
  {
    name: '2.10: reqs lines, min/max/sum, integer snapshot',
    text: V210,
    ids: ['24'],
    malformed: 0,
    check: ({ entries }) => {
      const [e] = entries;
      assert.deepEqual(
        e?.counters.map((c) => [c.name, c.unit, c.samples, c.sum]),
        [
          ['read_bytes', 'bytes', 0, 0],
          ['write_bytes', 'bytes', 64575, 215147593728],
          ['punch', 'reqs', 1, undefined],
        ],
      );
      assert.ok(Number.isNaN(e.startTime));
    },
  },
  {
    name: 'min:16777216 with no space (pre-2.15 width overflow)',
    text: 'job_stats:\n- job_id:          x\n  write_bytes:     { samples:          25, unit: bytes, min: 1048576, max:16777216, sum:        26214400 }\n',
    ids: ['x'],
    malformed: 0,
    check: ({ entries }) => assert.equal(entries[0]?.counters[0]?.sum, 26214400),
  },
  {
    name: '2.14+: quoted id, start_time, usecs with sumsq, hist (empty and full)',
    text: V214,
    ids: ['"SLURM_JOB10:0:es18kxe-co-client"'],
    malformed: 0,
    check: ({ entries }) => {
      const e = entries[0]!;
      assert.equal(e.startTime, 1723102025.0572863); // the double nearest the printed 1723102025.057286226
      assert.deepEqual(
        e.counters.map((c) => [c.name, c.unit, c.samples, c.sum]),
        [
          ['read_bytes', 'bytes', 0, 0],
          ['write_bytes', 'bytes', 861, 11025514496],
          ['write', 'usecs', 861, 7304967],
        ],
      );
    },
  },
  {
    name: '2.15.0/1: unindented `snapshot_time   :` header lines',
    text: V2150,
    ids: ['1234:5000:node1'],
    malformed: 0,
    check: ({ entries }) => {
      assert.equal(entries[0]?.startTime, 1896000.000000001);
      assert.equal(entries[0].counters[0]?.sum, 300);
    },
  },
  {
    name: '2.15.2+: \\xHH escapes are kept raw (decoded elsewhere)',
    text: 'job_stats:\n- job_id:          "kworker\\x2F86\\x3A1.0"\n  open:            { samples:           1, unit: usecs, min: 1, max: 1, sum: 1, sumsq: 1 }\n',
    ids: ['"kworker\\x2F86\\x3A1.0"'],
    malformed: 0,
  },
  {
    name: 'operation names of 15+ characters get no padding',
    text: 'job_stats:\n- job_id:          a\n  parallel_rename_file: { samples:           3, unit: usecs, min: 1, max: 1, sum: 9, sumsq: 27 }\n  crossdir_rename: { samples:           2, unit:  reqs }\n',
    ids: ['a'],
    malformed: 0,
    check: ({ entries }) =>
      assert.deepEqual(
        entries[0]?.counters.map((c) => c.name),
        ['parallel_rename_file', 'crossdir_rename'],
      ),
  },
  {
    name: 'u64 beyond 2^53 stays exact (BigInt)',
    text: 'job_stats:\n- job_id:          big\n  write_bytes:     { samples: 18446744073709551615, unit: bytes, min: 0, max: 0, sum: 9007199254740993, sumsq: 18386454136297095168 }\n',
    ids: ['big'],
    malformed: 0,
    check: ({ entries }) => {
      assert.equal(entries[0]?.counters[0]?.samples, 18446744073709551615n);
      assert.equal(entries[0].counters[0].sum, 9007199254740993n);
    },
  },
  {
    name: '16-digit values that fit 2^53 come back as numbers',
    text: 'job_stats:\n- job_id:          n\n  open: { samples: 1234567890123456, unit: reqs }\n',
    ids: ['n'],
    malformed: 0,
    check: ({ entries }) => assert.equal(entries[0]?.counters[0]?.samples, 1234567890123456),
  },
  {
    name: 'CRLF line ends',
    text: 'job_stats:\r\n- job_id:          w\r\n  open:            { samples:           2, unit:  reqs }\r\n',
    ids: ['w'],
    malformed: 0,
  },
  {
    name: '2.12–2.14: a raw space inside the id is kept, trailing blanks are not',
    text: 'job_stats:\n- job_id:          my job  \n  open: { samples: 1, unit: reqs }\n',
    ids: ['my job'],
    malformed: 0,
  },
  {
    name: 'lctl framing: several targets, one empty on the header line',
    text: `obdfilter.fs-OST0000.job_stats=\n${V210}obdfilter.fs-OST0001.job_stats=job_stats:\nmdt.fs-MDT0000.job_stats=\njob_stats:\n- job_id:          m\n  open: { samples: 4, unit: reqs }\n`,
    ids: ['24', 'm'],
    malformed: 0,
    check: ({ entries }) =>
      assert.deepEqual(
        entries.map((e) => [e.kind, e.target]),
        [
          ['obdfilter', 'fs-OST0000'],
          ['mdt', 'fs-MDT0000'],
        ],
      ),
  },
  {
    name: 'lctl dump with other parameters: their values are skipped',
    text: `mdt.fs-MDT0000.md_stats=\nsnapshot_time             1 secs.nsecs\nopen                      5 samples [reqs]\nmdt.fs-MDT0000.job_stats=\n${V210}`,
    ids: ['24'],
    malformed: 0,
  },
  {
    name: 'truncated last line (read cut short) is malformed, the rest is kept',
    text: `${V210}- job_id:          25\n  read_bytes:      { samples:           3, unit: bytes, min: 1, max`,
    ids: ['24', '25'],
    malformed: 1,
    check: ({ entries }) => assert.equal(entries[1]?.counters.length, 0),
  },
  {
    name: 'garbage lines are counted, not fatal',
    text: 'job_stats:\n- job_id:          g\n  open:            { samples: -1, unit: reqs }\n  close: { samples: 1, unit: reqs } trailing\n  stat: { unit: reqs }\n{ samples: 1 }\nwhatever\n- jobid: nope\n  setattr: { samples: 7, unit: reqs }\n',
    ids: ['g'],
    malformed: 6,
    check: ({ entries }) =>
      assert.deepEqual(
        entries[0]?.counters.map((c) => [c.name, c.samples]),
        [['setattr', 7]],
      ),
  },
  { name: 'counter before any job_id is malformed', text: 'job_stats:\n  open: { samples: 1, unit: reqs }\n', ids: [], malformed: 1 },
];

for (const c of cases) {
  test(`job_stats parser: ${c.name}`, () => {
    const parsed = parseJobStats(c.text);
    assert.deepEqual(
      parsed.entries.map((e) => e.rawId),
      c.ids,
    );
    assert.equal(parsed.malformedLines, c.malformed);
    c.check?.(parsed);
  });
}

const fixtureCases: readonly [string, number, number][] = [
  ['hp-2.10.1-mdt/proc/fs/lustre/mdt/lustrefs-MDT0000/job_stats', 15, 16],
  ['hp-2.10.1-ost/proc/fs/lustre/obdfilter/lustrefs-OST0000/job_stats', 35, 12],
  ['hp-2.10.1-ost-empty/proc/fs/lustre/obdfilter/lustrefs-OST0002/job_stats', 0, 0],
  ['iml-2.4-era-ost/proc/fs/lustre/obdfilter/lustre-OST0000/job_stats', 2, 5],
  ['telegraf-2.12-mdt/proc/fs/lustre/mdt/OST0001/job_stats', 2, 16],
  ['telegraf-2.12-ost/proc/fs/lustre/obdfilter/OST0001/job_stats', 2, 12],
  ['lctl/lctl_get_param.obdfilter.job_stats.txt', 16, 15],
  ['lctl/lctl_get_param.mdt.job_stats.txt', 12, 24],
];

for (const [path, entries, counters] of fixtureCases) {
  test(`job_stats parser: real capture ${path}`, () => {
    const parsed = parseJobStats(fixture(path));
    assert.equal(parsed.malformedLines, 0);
    assert.equal(parsed.entries.length, entries);
    for (const e of parsed.entries) assert.equal(e.counters.length, counters, e.rawId);
  });
}

test('job_stats parser: the two-MDT lctl capture keeps each entry with its target', () => {
  const { entries } = parseJobStats(fixture('lctl/lctl_get_param.mdt.job_stats.txt'));
  assert.deepEqual([...new Set(entries.map((e) => e.target))], ['es01a-MDT0000', 'es02a-MDT0000']);
  assert.equal(entries.filter((e) => e.target === 'es02a-MDT0000').length, 7);
});

test('job_stats parser: a buffer and a string give the same result', () => {
  const text = fixture('lctl/lctl_get_param.obdfilter.job_stats.txt');
  assert.deepEqual(parseJobStats(Buffer.from(text)), parseJobStats(text));
});

// Property tests: whatever the bytes, the scanner returns, and every value is a non-negative integer.
function assertSane(input: string | Uint8Array): void {
  const { entries } = parseJobStats(input);
  for (const e of entries) {
    for (const c of e.counters) {
      assert.ok(typeof c.samples === 'bigint' ? c.samples >= 0n : Number.isSafeInteger(c.samples) && c.samples >= 0);
      if (c.sum !== undefined) assert.ok(typeof c.sum === 'bigint' ? c.sum >= 0n : Number.isSafeInteger(c.sum) && c.sum >= 0);
    }
  }
}

test('job_stats parser (property): random bytes never throw', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => assertSane(bytes)),
    { numRuns: 500 },
  );
});

test('job_stats parser (property): any truncation or splice of real captures never throws', () => {
  const texts = fixtureCases.map(([p]) => fixture(p)).filter((t) => t.length > 0);
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.nat(), fc.nat(), fc.string({ maxLength: 40 }), (which, cut, at, noise) => {
      const text = texts[which]!;
      const end = cut % (text.length + 1);
      const where = at % (end + 1);
      assertSane(text.slice(0, where) + noise + text.slice(where, end));
    }),
    { numRuns: 500 },
  );
});

test('job_stats parser (property): line-shaped noise never throws', () => {
  const token = fc.constantFrom(
    '- job_id:',
    'job_stats:',
    '  open:',
    ' { samples:',
    ' 12',
    ', unit:',
    ' reqs',
    ' }',
    ', sum:',
    ', hist: {',
    ' 4K: 1',
    '=',
    'mdt.x.job_stats=',
    '\n',
    '  ',
    '"',
    '\\x3A',
    '18446744073709551616',
  );
  fc.assert(
    fc.property(fc.array(token, { maxLength: 200 }), (tokens) => assertSane(tokens.join(''))),
    { numRuns: 500 },
  );
});

test('scanJobStats: the entry view is reused, entries are counted', () => {
  let seen = 0;
  const result = scanJobStats(V210 + V210.replace('job_stats:\n', ''), { entry: () => (seen += 1) });
  assert.equal(seen, 2);
  assert.equal(result.entries, 2);
});

test('job_stats parser: a samples or sum above the u64 range makes its entry invalid (the others are kept)', () => {
  const entry = (id: string, sum: string, samples = '1'): string =>
    `- job_id:          ${id}\n  write_bytes:     { samples: ${samples}, unit: bytes, min: 1, max: 1, sum: ${sum} }\n  punch:           { samples: 2, unit:  reqs }\n`;
  const text = `job_stats:\n${entry('max', '18446744073709551615')}${entry('over', '18446744073709551616')}${entry('huge', '9'.repeat(400))}${entry('samples', '1', '18446744073709551616')}${entry('ok', '7')}`;
  const { entries, malformedLines } = parseJobStats(text);
  assert.equal(malformedLines, 0, 'the lines have a known shape; their entries are rejected, not the lines');
  assert.deepEqual(
    entries.map((e) => [e.rawId, e.invalid]),
    [
      ['max', false],
      ['over', true],
      ['huge', true],
      ['samples', true],
      ['ok', false],
    ],
  );
  assert.equal(entries[0]!.counters[0]!.sum, 2n ** 64n - 1n);
  assert.equal(entries[4]!.counters[0]!.sum, 7);
});

/** What a visitor saw: entries as [rawId, names, samples, sums], and malformed lines. */
function recorder(): { visitor: JobStatsVisitor; seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    seen,
    visitor: {
      target: (k, t) => seen.push(['target', k, t]),
      entry: (v) => seen.push([v.rawId, v.invalid, v.names.slice(0, v.count), v.samples.slice(0, v.count), v.sums.slice(0, v.count)]),
      malformed: () => seen.push('malformed'),
    },
  };
}

function streamed(bytes: Buffer, cuts: readonly number[]): unknown[] {
  const { visitor, seen } = recorder();
  const stream = new JobStatsStream(visitor);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    const end = Math.min(bytes.length, Math.max(at, cut));
    // A reused buffer, as the file reader does: the stream must copy what it keeps.
    const chunk = Buffer.from(bytes.subarray(at, end));
    stream.push(chunk);
    chunk.fill(0x21);
    at = end;
  }
  stream.end();
  return seen;
}

test('JobStatsStream (property): any chunking of real captures gives what one scan gives', () => {
  const texts = fixtureCases.map(([p]) => Buffer.from(fixture(p))).filter((t) => t.length > 0);
  texts.push(Buffer.from(fixture('lctl/lctl_get_param.mdt.job_stats.txt')));
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.array(fc.nat(), { maxLength: 30 }), (which, raw) => {
      const bytes = texts[which]!;
      const cuts = raw.map((r) => r % (bytes.length + 1)).sort((a, b) => a - b);
      const whole = recorder();
      scanJobStats(bytes, whole.visitor);
      assert.deepEqual(streamed(bytes, cuts), whole.seen);
    }),
    { numRuns: 200 },
  );
});

test('JobStatsStream: a line longer than MAX_LINE_BYTES is one malformed line, across chunks; the next lines are read', () => {
  const long = Buffer.alloc(3 * MAX_LINE_BYTES, 0x61);
  const text = Buffer.concat([Buffer.from(`job_stats:\n- job_id:          1\n`), long, Buffer.from(`\n  punch:           { samples: 3, unit:  reqs }\n`)]);
  for (const cuts of [[], [100], [100, MAX_LINE_BYTES, 2 * MAX_LINE_BYTES + 5], [text.length - 1]]) {
    assert.deepEqual(streamed(text, cuts), ['malformed', ['1', false, ['punch'], [3], [-1]]], `cuts ${cuts.join(',')}`);
  }
  // Sparse zeros without any newline (a hole-filled file): one malformed line, memory of one line.
  assert.deepEqual(streamed(Buffer.alloc(5 * MAX_LINE_BYTES), [1, MAX_LINE_BYTES * 2, MAX_LINE_BYTES * 4]), ['malformed']);
});

test('JobStatsStream: a read cut at a bound drops the incomplete last entry and partial line', () => {
  const { visitor, seen } = recorder();
  const stream = new JobStatsStream(visitor);
  stream.push(Buffer.from(`${V210}- job_id:          25\n  punch:           { samples: 1, unit:  reqs }\n  open: { samp`));
  const result = stream.end(true);
  assert.deepEqual(
    seen.map((e) => (Array.isArray(e) ? e[0] : e)),
    ['24'],
  );
  assert.equal(result.entries, 1);
  assert.equal(result.malformedLines, 0);
});

test('JobStatsStream: the last line of a file without its newline is read as one scan reads it, whatever an earlier line left in the carry buffer', () => {
  // The carried line `  aaaaaaa{{{{{…` (malformed) leaves `{` and `:` bytes in the reused carry buffer
  // just past the short last lines below; they must not make `punch: ` a counter line or `  punch` a key line.
  for (const [last, stale] of [
    ['  punch: ', '{'],
    ['  punch', ':'],
  ] as const) {
    const head = `job_stats:\n- job_id:          1\n  open:            { samples: 2, unit:  reqs }\n`;
    const earlier = `  aaaaaaa${stale.repeat(40)}`;
    const text = Buffer.from(`${head}${earlier}\n${last}`);
    const whole = recorder();
    scanJobStats(text, whole.visitor);
    assert.deepEqual(
      whole.seen.map((e) => (Array.isArray(e) ? e[0] : e)),
      // One malformed line each: `  aaaaaaa{{{…` (no colon) and `  punch` (no colon); `aaaaaaa:::…` and `punch: ` are key lines.
      ['malformed', '1'],
      `${JSON.stringify(last)} in one scan`,
    );
    // The earlier line ends in the second chunk, so it was carried; the last line is carried after it.
    assert.deepEqual(streamed(text, [head.length + 3]), whole.seen, `${JSON.stringify(last)} streamed`);
  }
});

// The addon (native/jobscan) reads the counter lines it is sure of and hands back every other line:
// on any input, scanning with it gives exactly what the scanner gives in JavaScript alone.
function bothWays(input: string | Uint8Array): void {
  assert.deepEqual(parseJobStats(input, 'native'), parseJobStats(input, 'js'));
}

test('job_stats scanner: the line addon is built and loads (without it the comparisons below would compare JavaScript with itself)', () => {
  assert.ok(linesAddon(), `native/jobscan: ${linesAddonError()?.message ?? 'not loaded'} (npm run build builds it)`);
});

test('job_stats scanner (property): the addon and JavaScript agree on random bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => bothWays(bytes)),
    { numRuns: 500 },
  );
});

test('job_stats scanner (property): the addon and JavaScript agree on any splice of real captures', () => {
  const texts = [...fixtureCases.map(([p]) => fixture(p)), V214, V2150].filter((t) => t.length > 0);
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.nat(), fc.nat(), fc.string({ maxLength: 40 }), (which, cut, at, noise) => {
      const text = texts[which]!;
      const end = cut % (text.length + 1);
      const where = at % (end + 1);
      bothWays(text.slice(0, where) + noise + text.slice(where, end));
    }),
    { numRuns: 1000 },
  );
});

test('job_stats scanner (property): the addon and JavaScript agree on counter-shaped noise', () => {
  const token = fc.constantFrom(
    '- job_id:',
    'job_stats:',
    'mdt.x.job_stats=',
    'obdfilter.x.other=',
    '  open:',
    '  start_time:',
    '  snapshot_time:',
    'start_time      :',
    ' 1723102025.05',
    ' 1.2.3',
    '.',
    ' secs.nsecs',
    'open:',
    ' {',
    ' { samples:',
    'samples:',
    'sa:',
    'sum:',
    'su:',
    'sumsq:',
    'unit:',
    'u:',
    'hist:',
    'h:',
    ' 12',
    ' 999999999999999',
    ' 1234567890123456',
    ' 18446744073709551616',
    ' reqs',
    ' usecs',
    ',',
    ', ',
    ' }',
    '}',
    '{',
    ', hist: { 4K: 1 }',
    ':',
    '\n',
    '\r\n',
    '\r',
    '\t',
    '  ',
    ' ',
    'x',
  );
  fc.assert(
    fc.property(fc.array(token, { maxLength: 300 }), (tokens) => bothWays(tokens.join(''))),
    { numRuns: 2000 },
  );
});

test('JobStatsStream (property): the addon and JavaScript agree on any chunking of spliced captures', () => {
  const texts = fixtureCases.map(([p]) => fixture(p)).filter((t) => t.length > 0);
  const read = (bytes: Buffer, cuts: readonly number[], engine: 'native' | 'js'): unknown[] => {
    const { visitor, seen } = recorder();
    const stream = new JobStatsStream(visitor, engine);
    let at = 0;
    for (const cut of [...cuts, bytes.length]) {
      const end = Math.min(bytes.length, Math.max(at, cut));
      const chunk = Buffer.from(bytes.subarray(at, end));
      stream.push(chunk);
      chunk.fill(0x7b); // `{`: a reused chunk's stale bytes must not decide a line
      at = end;
    }
    seen.push(stream.end());
    return seen;
  };
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.nat(), fc.string({ maxLength: 30 }), fc.array(fc.nat(), { maxLength: 20 }), (which, at, noise, raw) => {
      const text = texts[which]!;
      const where = at % (text.length + 1);
      const bytes = Buffer.from(text.slice(0, where) + noise + text.slice(where));
      const cuts = raw.map((r) => r % (bytes.length + 1)).sort((a, b) => a - b);
      assert.deepEqual(read(bytes, cuts, 'native'), read(bytes, cuts, 'js'));
    }),
    { numRuns: 500 },
  );
});

test('job_stats scanner: the addon and JavaScript agree past the addon record buffer (thousands of lines in one call, CRLF, a malformed line at every 97th entry)', () => {
  const entries: string[] = [];
  for (let i = 0; i < 3000; i += 1) {
    const entry = V214.replace('job_stats:\n', '').replace('SLURM_JOB10', `SLURM_JOB${i}`);
    entries.push(i % 97 === 0 ? entry.replace('unit: usecs', 'unit usecs') : entry);
  }
  const text = `job_stats:\n${entries.join('')}`;
  for (const input of [text, text.replaceAll('\n', '\r\n')]) {
    const native = parseJobStats(input, 'native');
    assert.equal(native.entries.length, 3000);
    assert.equal(native.malformedLines, 31);
    assert.deepEqual(native, parseJobStats(input, 'js'));
  }
});

test('job_stats scanner: the addon and JavaScript agree on every one-byte change of counter lines in the 2.14 columns', () => {
  // The addon reads these columns at fixed places and falls back to its general reading on any
  // difference: a byte replaced, dropped or added anywhere must give what the JavaScript scanner gives.
  const lines = [
    '  write_bytes:     { samples:         861, unit: bytes, min:    24576, max: 16777216, sum:      11025514496, sumsq: 166242808078794752, hist: { 32K: 1, 64K: 1 } }',
    '  read_bytes:      { samples:           0, unit: bytes, min:        0, max:        0, sum:                0, sumsq:                  0, hist: {  } }',
    '  getattr:         { samples:  4294967295, unit: usecs, min:        1, max: 99999999, sum:  999999999999999, sumsq: 1662428080787947520123 }',
  ];
  const replacements = [' ', '0', '9', ',', ':', '{', '}', 'x', '\t', '\r'];
  let inputs = 0;
  let counters = 0;
  for (const line of lines) {
    for (let i = 0; i <= line.length; i += 1) {
      const changed = [line.slice(0, i) + ' ' + line.slice(i), line.slice(0, i) + '7' + line.slice(i)];
      if (i < line.length) {
        changed.push(line.slice(0, i) + line.slice(i + 1));
        for (const c of replacements) if (c !== line[i]) changed.push(line.slice(0, i) + c + line.slice(i + 1));
      }
      for (const text of changed) {
        const input = `job_stats:\n- job_id:          7\n${text}\n`;
        const native = parseJobStats(input, 'native');
        assert.deepEqual(native, parseJobStats(input, 'js'), JSON.stringify(text));
        inputs += 1;
        counters += native.entries[0]!.counters.length;
      }
    }
  }
  assert.equal(inputs, 5603);
  assert.equal(counters, 1671);
});
