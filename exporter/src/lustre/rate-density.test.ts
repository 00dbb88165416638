// The rate density counts every job, folded or not, against an independent count: generated OST
// trees with thousands of jobs (several client hosts per job, idle jobs, malformed ids), two
// collections a known interval apart, and the expected decade of each job and user computed here
// from the generator's own numbers (decade read from the decimal exponent, not from log10).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobStatsText, OST_OPS_210, type GeneratedJob } from '../../../test/lustre/generate-jobstats.js';
import { newAccumulator, scrapeOnce } from '../../../test/lustre/harness.js';
import { BUCKETS, bucketLabel, bucketOf, DENSITY_OPERATIONS, DensityWindow, fieldClassesOf, MAX_DECADE, MIN_DECADE, RATE_CLASSES, ZERO_BUCKET, type RateDensity } from './rate-density.js';

test('bucketOf: exact at powers of ten, zero apart, clamped to the exported decades', () => {
  assert.equal(bucketOf(0), ZERO_BUCKET);
  for (let y = MIN_DECADE; y <= MAX_DECADE; y += 1) {
    const power = Number(`1e${y}`);
    assert.equal(bucketLabel(bucketOf(power)), String(y), `10^${y}`);
    const below = power * (1 - 2 ** -52);
    assert.equal(bucketLabel(bucketOf(below)), String(Math.max(y - 1, MIN_DECADE)), `just below 10^${y}`);
  }
  assert.equal(bucketLabel(bucketOf(1e-9)), String(MIN_DECADE));
  assert.equal(bucketLabel(bucketOf(5e20)), String(MAX_DECADE));
  assert.equal(BUCKETS, MAX_DECADE - MIN_DECADE + 2);
});

/** The oracle's decade: the exponent of the shortest decimal form of the double, clamped. */
function oracleBucket(rate: number): string {
  if (rate === 0) return 'zero';
  const y = Number(rate.toExponential().split('e')[1]);
  return String(Math.min(Math.max(y, MIN_DECADE), MAX_DECADE));
}

interface GenJob {
  readonly jobid: number;
  readonly uid: number;
  readonly hosts: number;
  /** Per-host increment between the two collections, per operation (samples) and per byte sum. */
  readonly grow: Record<string, number>;
}

/** Deterministic jobs whose increments spread over many decades; every 11th job is idle. */
function makeJobs(count: number): GenJob[] {
  const jobs: GenJob[] = [];
  for (let i = 0; i < count; i += 1) {
    const idle = i % 11 === 0;
    const scale = (k: number): number => (idle ? 0 : Math.floor(10 ** ((i * k) % 9) * (1 + (i % 7))));
    jobs.push({
      jobid: 7_000_000 + i,
      uid: 2000 + (i % 37),
      hosts: 1 + (i % 3),
      grow: { read_bytes: scale(1) % 5000, write_bytes: scale(3) % 7000, punch: scale(5) % 300, getattr: i % 4 === 0 ? 0 : scale(7) % 90, read_sum: scale(2), write_sum: scale(4) },
    });
  }
  return jobs;
}

/** The job_stats text: each host of each job one entry; `factor` 0 is the first collection. */
function tree(jobs: readonly GenJob[], factor: number): string {
  const entries: GeneratedJob[] = [];
  for (const j of jobs) {
    for (let h = 0; h < j.hosts; h += 1) {
      const base = 1000 + h;
      const v = (op: string): number => base + factor * (j.grow[op] ?? 0);
      entries.push({
        id: `${j.jobid}:${j.uid}:c${String(h).padStart(3, '0')}`,
        samples: { read_bytes: v('read_bytes'), write_bytes: v('write_bytes'), punch: v('punch'), getattr: v('getattr') },
        sums: { read_bytes: v('read_sum') * 4096, write_bytes: v('write_sum') * 4096 },
      });
    }
  }
  // Ids that fit no format: entries of no job, counted neither as jobs nor as users.
  for (let m = 0; m < 25; m += 1) entries.push({ id: `not a job id ${m}`, samples: { punch: 5 + factor * m }, sums: {} });
  return jobStatsText(entries, '2.10', OST_OPS_210);
}

/** Expected counts per class and bucket label, jobs and users, from the generator's numbers. */
function oracle(jobs: readonly GenJob[], seconds: number): { jobs: Map<string, number>; users: Map<string, number> } {
  const perClass = (j: GenJob): Record<string, number> => {
    const g = (op: string): number => (j.grow[op] ?? 0) * j.hosts;
    return {
      // 2.10: the read_bytes/write_bytes samples are the read/write requests.
      operations: g('read_bytes') + g('write_bytes') + g('punch') + g('getattr'),
      metadata: g('punch') + g('getattr'),
      read_bytes: g('read_sum') * 4096,
      write_bytes: g('write_sum') * 4096,
    };
  };
  const count = (into: Map<string, number>, totals: Record<string, number>): void => {
    for (const cls of RATE_CLASSES) {
      const key = `${cls}/${oracleBucket(totals[cls]! / seconds)}`;
      into.set(key, (into.get(key) ?? 0) + 1);
    }
  };
  const jobCounts = new Map<string, number>();
  const users = new Map<number, Record<string, number>>();
  for (const j of jobs) {
    const totals = perClass(j);
    count(jobCounts, totals);
    const u = users.get(j.uid) ?? { operations: 0, metadata: 0, read_bytes: 0, write_bytes: 0 };
    for (const cls of RATE_CLASSES) u[cls] = u[cls]! + totals[cls]!;
    users.set(j.uid, u);
  }
  const userCounts = new Map<string, number>();
  for (const totals of users.values()) count(userCounts, totals);
  return { jobs: jobCounts, users: userCounts };
}

function asMap(counts: Uint32Array): Map<string, number> {
  const out = new Map<string, number>();
  for (const [c, cls] of RATE_CLASSES.entries()) {
    for (let b = 0; b < BUCKETS; b += 1) {
      const n = counts[c * BUCKETS + b]!;
      if (n > 0) out.set(`${cls}/${bucketLabel(b)}`, n);
    }
  }
  return out;
}

function densityOf(acc: ReturnType<typeof newAccumulator>, target: string): RateDensity | undefined {
  for (const t of acc.targetViews()) if (t.name === target) return t.density;
  return undefined;
}

test('density over 4,000 jobs (8,000 entries, max-jobs 50): every job and user counted, equal to the independent count', () => {
  const jobs = makeJobs(4000);
  const acc = newAccumulator({ maxJobs: 50 });
  const first = scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 0) }, 1_000_000);
  assert.equal(densityOf(acc, 'OST0'), undefined, 'no interval yet at the first collection');
  assert.equal(first.targets.get('OST0')?.exportedJobs, 50);
  const second = scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 1) }, 1_000_000 + 45_000);
  // Most jobs are folded into _other, and still counted.
  assert.ok((second.targets.get('OST0')?.folded ?? 0) > 3000);
  const d = densityOf(acc, 'OST0');
  assert.ok(d);
  assert.equal(d.intervalSeconds, 45);
  // Stamped with the last window end of the exporter's clock (30 s windows) the read passed, not the read's time.
  assert.equal(d.endMs, 1_020_000);
  const expected = oracle(jobs, 45);
  assert.deepEqual(asMap(d.jobs), expected.jobs);
  assert.deepEqual(asMap(d.users), expected.users);
  // Each class partitions the jobs (4,000) and the users (37).
  for (const [c] of RATE_CLASSES.entries()) {
    assert.equal(
      d.jobs.slice(c * BUCKETS, (c + 1) * BUCKETS).reduce((a, b) => a + b, 0),
      4000,
    );
    assert.equal(
      d.users.slice(c * BUCKETS, (c + 1) * BUCKETS).reduce((a, b) => a + b, 0),
      37,
    );
  }
  // The idle jobs (every 11th) are in the zero bucket of every class, never in a decade.
  assert.ok((d.jobs[ZERO_BUCKET] ?? 0) >= Math.ceil(4000 / 11));
});

test('density per operation, beside the classes: every job in each operation of the fixed set, equal to the independent count', () => {
  const jobs = makeJobs(2000);
  const acc = newAccumulator({ maxJobs: 50 });
  scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 0) }, 1_000_000);
  scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 1) }, 1_000_000 + 30_000);
  const d = densityOf(acc, 'OST0');
  assert.ok(d);
  // Requests per operation of each job over its hosts; 2.10 counts read and write requests in the *_bytes samples.
  const source: Record<string, string> = { read: 'read_bytes', write: 'write_bytes', punch: 'punch', getattr: 'getattr' };
  const expected = new Map<string, number>();
  for (const j of jobs) {
    for (const op of DENSITY_OPERATIONS) {
      const key = source[op];
      const total = key === undefined ? 0 : (j.grow[key] ?? 0) * j.hosts;
      const k = `${op}/${oracleBucket(total / 30)}`;
      expected.set(k, (expected.get(k) ?? 0) + 1);
    }
  }
  const got = new Map<string, number>();
  for (const [k, op] of DENSITY_OPERATIONS.entries()) {
    const row = RATE_CLASSES.length + k;
    for (let b = 0; b < BUCKETS; b += 1) {
      const n = d.jobs[row * BUCKETS + b]!;
      if (n > 0) got.set(`${op}/${bucketLabel(b)}`, n);
    }
  }
  assert.deepEqual(got, expected);
  // An operation the OST never printed (open) has every job at zero; punch spreads over several decades.
  assert.equal(got.get('open/zero'), 2000);
  assert.ok([...got.keys()].filter((k) => k.startsWith('punch/') && k !== 'punch/zero').length >= 3);
});

test('density: a target not read in a scrape has none; the next read spans the whole interval since its last read', () => {
  const jobs = makeJobs(300);
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 0) }, 0);
  scrapeOnce(acc, { 'obdfilter/OST0': undefined }, 30_000);
  assert.equal(densityOf(acc, 'OST0'), undefined);
  scrapeOnce(acc, { 'obdfilter/OST0': tree(jobs, 1) }, 60_000);
  const d = densityOf(acc, 'OST0');
  assert.equal(d?.intervalSeconds, 60);
  assert.deepEqual(asMap(d.jobs), oracle(jobs, 60).jobs);
});

test('density on the exporter clock: two scrapers at different offsets read the same density, that of one scraper alone', () => {
  // The replayed job_stats: every job grows by its `grow` each second (a step a second).
  const jobs = makeJobs(300);
  const at = (ms: number): string => tree(jobs, Math.floor(ms / 1000));
  // Scraper A every 15 s at +2 s, scraper B every 15 s at +9.5 s; density window 30 s (the default).
  const a = Array.from({ length: 12 }, (_, n) => 1_800_000 + n * 15_000 + 2_000);
  const b = Array.from({ length: 12 }, (_, n) => 1_800_000 + n * 15_000 + 9_500);
  const both = newAccumulator();
  const alone = newAccumulator();
  const seen = { a: [] as string[], b: [] as string[], alone: [] as string[] };
  const show = (d: RateDensity | undefined): string => (d ? JSON.stringify([d.intervalSeconds, d.endMs, [...asMap(d.jobs)], [...asMap(d.users)]]) : 'none');
  for (const [time, who] of [...a.map((t) => [t, 'a'] as const), ...b.map((t) => [t, 'b'] as const)].sort((x, y) => x[0] - y[0])) {
    scrapeOnce(both, { 'obdfilter/OST0': at(time) }, time);
    seen[who].push(show(densityOf(both, 'OST0')));
    if (who === 'a') {
      scrapeOnce(alone, { 'obdfilter/OST0': at(time) }, time);
      seen.alone.push(show(densityOf(alone, 'OST0')));
    }
  }
  // Each of B's scrapes falls 7.5 s after one of A's, in the same window: the same density, stamped
  // with the same window end.
  assert.deepEqual(seen.b, seen.a);
  assert.deepEqual(seen.alone, seen.a);
  // The density is over 30 s windows (closed by A's reads at +2 s past each half minute) of every
  // job's rate per second: the generator's per-second growth, whatever the offsets.
  const expected = oracle(jobs, 1);
  assert.equal(seen.a[0], 'none', 'no window closed at the first read');
  const windows = seen.a.slice(2);
  assert.ok(windows.length >= 9);
  // A's read at +2 s past a half minute closed the window that ended at that half minute.
  for (const [i, w] of windows.entries()) assert.equal(w, show({ intervalSeconds: 30, endMs: Math.floor(a[i + 2]! / 30_000) * 30_000, ...countsOf(expected) }));
});

/** Counts per class and bucket from the oracle's label map, as a RateDensity holds them. */
function countsOf(m: { jobs: Map<string, number>; users: Map<string, number> }): { jobs: Uint32Array; users: Uint32Array } {
  const toArray = (labels: Map<string, number>): Uint32Array => {
    const out = new Uint32Array(RATE_CLASSES.length * BUCKETS);
    for (const [key, n] of labels) {
      const [cls, bucket] = key.split('/') as [string, string];
      const b = Array.from({ length: BUCKETS }, (_, i) => bucketLabel(i)).indexOf(bucket);
      out[RATE_CLASSES.indexOf(cls as (typeof RATE_CLASSES)[number]) * BUCKETS + b] = n;
    }
    return out;
  };
  return { jobs: toArray(m.jobs), users: toArray(m.users) };
}

test('density sums past 32 bits: a job whose window sum passes 2^32 − 1 is in the decade of its whole sum, every job apart', () => {
  // Field 0: bytes read; field 1: opens (operations, metadata and the open row).
  const fieldClasses = fieldClassesOf([
    { id: 0, kind: 'read_bytes', operation: 'read' },
    { id: 1, kind: 'operations', operation: 'open' },
  ]);
  const window = new DensityWindow(10_000);
  window.open(0);
  // Three reads of one 10 s window; more than a page of jobs (1,024 a page), each with its own sums.
  const jobs = 2500;
  const expected: number[][] = Array.from({ length: jobs }, () => [0, 0]);
  const reads: ((j: number) => (number | undefined)[])[] = [
    (j) => [j % 3 === 0 ? 2 ** 32 - 1 : j * 1000, j],
    (j) => [j % 3 === 0 ? 1 : j % 3 === 1 ? 4e9 : undefined, j % 5 === 0 ? undefined : 2],
    (j) => [j % 3 === 1 ? 4e9 : 7, 1],
  ];
  for (const [r, deltasOf] of reads.entries()) {
    for (let j = 0; j < jobs; j += 1) {
      const deltas = deltasOf(j);
      window.add({ quality: 'correct', jobid: `job${j}`, uid: 1000 + j }, deltas, fieldClasses);
      for (let f = 0; f < 2; f += 1) expected[j]![f]! += deltas[f] ?? 0;
    }
    window.settle(r === 2 ? 10_000 : 3000 + r);
  }
  const density = window.density!;
  assert.equal(density.intervalSeconds, 10);
  const readRow = RATE_CLASSES.indexOf('read_bytes');
  const openRow = RATE_CLASSES.length + DENSITY_OPERATIONS.indexOf('open');
  for (const [row, field] of [
    [readRow, 0],
    [openRow, 1],
  ] as const) {
    const want = new Map<string, number>();
    for (const sums of expected) {
      const label = oracleBucket(sums[field]! / 10);
      want.set(label, (want.get(label) ?? 0) + 1);
    }
    for (let b = 0; b < BUCKETS; b += 1) {
      assert.equal(density.jobs[row * BUCKETS + b], want.get(bucketLabel(b)) ?? 0, `row ${row}, bucket ${bucketLabel(b)}`);
      // One job a user here: the users' density is the jobs'.
      assert.equal(density.users[row * BUCKETS + b], want.get(bucketLabel(b)) ?? 0, `users: row ${row}, bucket ${bucketLabel(b)}`);
    }
  }
  // The sums that passed 32 bits are there: 2^32 + 6 (j % 3 = 0) and 8e9 + 1000·j (j % 3 = 1), both
  // 10^8 to 10^9 bytes a second; the others (j % 3 = 2: 1000·j + 7) are below 10^6.
  assert.equal(density.jobs[readRow * BUCKETS + 1 + 8 - MIN_DECADE], jobs - Math.floor((jobs + 1) / 3));
});

test('density through the accumulator: a job whose entry leaves and comes back within the window is one job', () => {
  const acc = newAccumulator();
  const entry = (id: string, bytes: number): GeneratedJob => ({ id, samples: { read_bytes: 1 }, sums: { read_bytes: bytes } });
  const file = (...jobs: GeneratedJob[]): string => jobStatsText(jobs, '2.14');
  scrapeOnce(acc, { 'obdfilter/OST0': file(entry('100:1001:c1', 1000), entry('200:1002:c2', 1000)) }, 0);
  scrapeOnce(acc, { 'obdfilter/OST0': file(entry('100:1001:c1', 1600), entry('200:1002:c2', 1005)) }, 1000);
  // Job 100's entry leaves the file (its class goes), then comes back from zero in the same window.
  scrapeOnce(acc, { 'obdfilter/OST0': file(entry('200:1002:c2', 1005)) }, 2000);
  scrapeOnce(acc, { 'obdfilter/OST0': file(entry('100:1001:c1', 500), entry('200:1002:c2', 1005)) }, 3000);
  scrapeOnce(acc, { 'obdfilter/OST0': file(entry('100:1001:c1', 500), entry('200:1002:c2', 1010)) }, 31_000);
  const d = densityOf(acc, 'OST0')!;
  assert.equal(d.intervalSeconds, 31);
  const row = RATE_CLASSES.indexOf('read_bytes') * BUCKETS;
  const counts = [...d.jobs.subarray(row, row + BUCKETS)];
  // Two jobs: 100 with 600 + 500 bytes (35 B/s, decade 1), 200 with 10 bytes (0.3 B/s, decade −1).
  assert.equal(
    counts.reduce((a, b) => a + b, 0),
    2,
  );
  assert.equal(counts[1 + 1 - MIN_DECADE], 1);
  assert.equal(counts[1 - 1 - MIN_DECADE], 1);
});
