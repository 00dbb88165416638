// Multi-snapshot scenarios of the counter semantics (docs/architecture.md "Lustre: counters the exporter owns") and bounded cardinality ("Bounded cardinality"), with
// exact expected values: growth, Lustre cleanup, reset, a new job between scrapes, several hosts of one
// job, folding with a small max-jobs, sticky slots, expiry, targets that vanish or fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobStatsText, type GeneratedJob } from '../../../test/lustre/generate-jobstats.js';
import { newAccumulator, scrapeOnce, total } from '../../../test/lustre/harness.js';
import { BUCKETS } from './rate-density.js';
import type { U64 } from '../util/u64.js';

const OPS = ['read_bytes', 'write_bytes', 'punch'] as const;
const MIN = 60_000;

/** A 2.10-format OST file: [id, write requests, bytes written]. */
function ost(...jobs: [string, number, number][]): string {
  const list: GeneratedJob[] = jobs.map(([id, writes, bytes]) => ({ id, samples: { write_bytes: writes }, sums: { write_bytes: bytes } }));
  return jobStatsText(list, '2.10', OPS);
}

const W = (jobid: string, user = 'uid:5000', target = 'OST0'): string => `write_bytes{${target},${jobid},${user}}`;
const OPW = (jobid: string, user = 'uid:5000', target = 'OST0'): string => `operations{${target},${jobid},${user},write}`;

test('first collection: values are starting values, exported as they are', () => {
  const acc = newAccumulator();
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000]) }, 0);
  assert.equal(out.exported.get(W('1')), 1000);
  assert.equal(out.exported.get(OPW('1')), 10);
  assert.equal(out.held.size, 0);
});

test('growth adds the exact difference', () => {
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000]) }, 0);
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 15, 1600]) }, MIN);
  assert.equal(out.exported.get(W('1')), 1600);
  assert.equal(out.exported.get(OPW('1')), 15);
});

test('a job first seen after the previous collection: born at 0, whole first value added next scrape', () => {
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000]) }, 0);
  const born = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000], ['2:5000:n1', 4, 400]) }, MIN);
  assert.equal(born.exported.get(W('2')), 0);
  assert.equal(born.held.get(W('2')), 400);
  const next = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000], ['2:5000:n1', 6, 700]) }, 2 * MIN);
  assert.equal(next.exported.get(W('2')), 700);
  assert.equal(next.exported.get(OPW('2')), 6);
});

test('Lustre cleanup: a dropped entry keeps its series; when it returns from zero its value is added', () => {
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000]) }, 0);
  const gone = scrapeOnce(acc, { 'obdfilter/OST0': ost() }, MIN);
  assert.equal(gone.exported.get(W('1')), 1000);
  const back = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 3, 300]) }, 2 * MIN);
  assert.equal(back.exported.get(W('1')), 1300);
  assert.equal(back.exported.get(OPW('1')), 13);
});

test('a decrease is a reset: the increment is the new value', () => {
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 10, 1000]) }, 0);
  // Bytes went down, requests went up: one field down means Lustre restarted the whole entry.
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 12, 200]) }, MIN);
  assert.equal(out.exported.get(W('1')), 1200);
  assert.equal(out.exported.get(OPW('1')), 22);
});

test('2.15+: a new start_time is a reset even when every value grew', () => {
  const acc = newAccumulator();
  const at = (start: number, writes: number, bytes: number): string =>
    jobStatsText([{ id: '1:5000:n1', samples: { write_bytes: writes, write: writes }, sums: { write_bytes: bytes, write: writes * 10 }, startTime: start }], '2.14', ['write_bytes', 'write']);
  scrapeOnce(acc, { 'obdfilter/OST0': at(1000, 10, 1000) }, 0);
  const out = scrapeOnce(acc, { 'obdfilter/OST0': at(2000, 11, 1100) }, MIN);
  assert.equal(out.exported.get(W('1')), 2100);
  assert.equal(out.exported.get(OPW('1')), 21);
  assert.equal(out.exported.get('operation_seconds{OST0,1,uid:5000,write}'), 210);
});

test('2.14+: read/write requests come from the read/write lines, bytes from *_bytes sums', () => {
  const acc = newAccumulator();
  const text = jobStatsText([{ id: '1:5000:n1', samples: { write_bytes: 7, write: 7, punch: 2 }, sums: { write_bytes: 7000, write: 70, punch: 4 } }], '2.14', [
    'read_bytes',
    'write_bytes',
    'read',
    'write',
    'punch',
  ]);
  const out = scrapeOnce(acc, { 'obdfilter/OST0': text }, 0);
  assert.deepEqual([...out.exported].sort(), [
    ['operation_seconds{OST0,1,uid:5000,punch}', 4],
    ['operation_seconds{OST0,1,uid:5000,write}', 70],
    ['operations{OST0,1,uid:5000,punch}', 2],
    ['operations{OST0,1,uid:5000,write}', 7],
    ['write_bytes{OST0,1,uid:5000}', 7000],
  ]);
});

test('entries of one job from several hosts add up into one series; FQDN entries are malformed under %H', () => {
  const acc = newAccumulator();
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(['7:5000:n1', 1, 100], ['7:5000:n2', 2, 200], ['7:5000:n3.cluster', 4, 400]) }, 0);
  assert.equal(out.exported.get(W('7')), 300);
  assert.equal(out.exported.get(W('_other', '_other')), 400);
  assert.deepEqual(out.targets.get('OST0')?.quality, { correct: 2, missing_jobid: 0, malformed: 1 });
});

test('a job whose hosts come and go: exact sums, and the rate density counts it once while any of its entries is left', () => {
  const acc = newAccumulator();
  // Jobs in the rate density of the last scrape: every job counts once in the operations class.
  const densityJobs = (): number => [...acc.targetViews()][0]!.density!.jobs.slice(0, BUCKETS).reduce((a, b) => a + b, 0);
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['7:5000:n1', 1, 100], ['7:5000:n2', 2, 200], ['8:5000:n1', 1, 10]) }, 0);
  const oneLeft = scrapeOnce(acc, { 'obdfilter/OST0': ost(['7:5000:n1', 3, 300], ['8:5000:n1', 1, 10]) }, MIN);
  assert.deepEqual([oneLeft.exported.get(W('7')), oneLeft.exported.get(OPW('7')), densityJobs()], [500, 5, 2]);
  // A new host of job 7 while n1 is still there: the same job, not a second one.
  const joined = scrapeOnce(acc, { 'obdfilter/OST0': ost(['7:5000:n1', 3, 300], ['7:5000:n3', 1, 50], ['8:5000:n1', 1, 10]) }, 2 * MIN);
  assert.deepEqual([joined.exported.get(W('7')), joined.exported.get(OPW('7')), densityJobs()], [550, 6, 2]);
  const allGone = scrapeOnce(acc, { 'obdfilter/OST0': ost(['8:5000:n1', 1, 10]) }, 3 * MIN);
  assert.deepEqual([allGone.exported.get(W('7')), densityJobs()], [550, 1]);
  const back = scrapeOnce(acc, { 'obdfilter/OST0': ost(['7:5000:n2', 2, 20], ['8:5000:n1', 1, 10]) }, 4 * MIN);
  assert.deepEqual([back.exported.get(W('7')), back.exported.get(OPW('7')), densityJobs()], [570, 8, 2]);
});

test('identity: missing job id and login-node entries (%e.%u, correct) → _none (with the executable as process), system uids → _system', () => {
  const acc = newAccumulator();
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost([':5000:n1', 1, 10], ['cp.0', 2, 20], ['dd.5000', 3, 30], ['8:12:n1', 4, 40]) }, 0);
  assert.equal(out.exported.get(W('_none')), 10);
  assert.equal(out.exported.get('write_bytes{OST0,_none,_system,process=cp}'), 20);
  assert.equal(out.exported.get('write_bytes{OST0,_none,uid:5000,process=dd}'), 30);
  assert.equal(out.exported.get(W('8', '_system')), 40);
  assert.deepEqual(out.targets.get('OST0')?.quality, { correct: 3, missing_jobid: 1, malformed: 0 });
});

test('folding with max-jobs=2: the two most active get series, the rest and malformed load go to _other', () => {
  const acc = newAccumulator({ maxJobs: 2 });
  const first = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 30, 3000], ['2:5000:n', 10, 1000], ['3:5000:n', 20, 2000], ['bad id', 5, 500]) }, 0);
  assert.equal(first.exported.get(W('1')), 3000);
  assert.equal(first.exported.get(W('3')), 2000);
  assert.equal(first.exported.get(W('2')), undefined);
  assert.equal(first.exported.get(W('_other', '_other')), 1500);
  assert.equal(total(first.exported, 'write_bytes{OST0,'), 6500);
  assert.equal(first.targets.get('OST0')?.folded, 1);
  assert.equal(first.targets.get('OST0')?.exportedJobs, 2);
  // Sticky: job 2 becomes the most active, but 1 and 3 keep their slots; 2's increments go to _other.
  const second = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 31, 3100], ['2:5000:n', 90, 9000], ['3:5000:n', 20, 2000], ['bad id', 5, 500]) }, MIN);
  assert.equal(second.exported.get(W('1')), 3100);
  assert.equal(second.exported.get(W('3')), 2000);
  assert.equal(second.exported.get(W('_other', '_other')), 9500);
  assert.equal(total(second.exported, 'write_bytes{OST0,'), 14600);
});

test('expiry frees a slot for the most active waiting job, born at 0; expired series disappear', () => {
  const acc = newAccumulator({ maxJobs: 1, expiryMs: 10 * MIN });
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 30, 3000], ['2:5000:n', 10, 1000]) }, 0);
  // Job 1 stops; job 2 keeps writing into _other until job 1's series expires.
  const idle = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 30, 3000], ['2:5000:n', 20, 2000]) }, 5 * MIN);
  assert.equal(idle.exported.get(W('1')), 3000);
  assert.equal(idle.exported.get(W('_other', '_other')), 2000);
  const expired = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 30, 3000], ['2:5000:n', 25, 2500]) }, 11 * MIN);
  assert.equal(expired.exported.get(W('1')), undefined);
  assert.equal(expired.exported.get(W('2')), 0);
  assert.equal(expired.held.get(W('2')), 500);
  assert.equal(expired.targets.get('OST0')?.expired, 1);
  const later = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 30, 3000], ['2:5000:n', 25, 2500]) }, 12 * MIN);
  assert.equal(later.exported.get(W('2')), 500);
  assert.equal(later.exported.get(W('_other', '_other')), 2000);
});

test('a target that disappears keeps its series until expiry and starts afresh when it returns', () => {
  const acc = newAccumulator({ expiryMs: 10 * MIN });
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 1, 100]) }, 0);
  const gone = scrapeOnce(acc, {}, MIN);
  assert.equal(gone.exported.get(W('1')), 100);
  assert.equal(gone.targets.get('OST0')?.read, false);
  const back = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 1, 100]) }, 2 * MIN);
  assert.equal(back.exported.get(W('1')), 200);
  const forgotten = scrapeOnce(acc, {}, 30 * MIN);
  assert.equal(forgotten.targets.size, 0);
});

test('a failed read keeps the entries: nothing counted twice when the read works again', () => {
  const acc = newAccumulator();
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 1, 100]) }, 0);
  const failed = scrapeOnce(acc, { 'obdfilter/OST0': undefined }, MIN);
  assert.equal(failed.exported.get(W('1')), 100);
  assert.equal(failed.targets.get('OST0')?.readErrors, 1);
  const ok = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 2, 150]) }, 2 * MIN);
  assert.equal(ok.exported.get(W('1')), 150);
});

test('several targets are independent; max-jobs applies per target', () => {
  const acc = newAccumulator({ maxJobs: 1 });
  const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n', 2, 200], ['2:5000:n', 1, 100]), 'obdfilter/OST1': ost(['2:5000:n', 5, 500]) }, 0);
  assert.equal(out.exported.get(W('1')), 200);
  assert.equal(out.exported.get(W('_other', '_other')), 100);
  assert.equal(out.exported.get(W('2', 'uid:5000', 'OST1')), 500);
});

test('lctl output: entries go to the targets named by the headers', () => {
  const acc = newAccumulator();
  acc.begin();
  acc.ingest(`obdfilter.fs-OST0000.job_stats=\n${ost(['1:5000:n', 1, 100])}obdfilter.fs-OST0001.job_stats=\n${ost(['1:5000:n', 2, 200])}`);
  acc.finish(0, () => 'u');
  const names = [...acc.targetViews()].map((t) => t.name);
  assert.deepEqual(names, ['fs-OST0000', 'fs-OST0001']);
});

test('u64 beyond 2^53: increments stay exact', () => {
  const acc = newAccumulator();
  const big = (sum: bigint): string => `job_stats:\n- job_id:          1:5000:n\n  write_bytes:     { samples: 1, unit: bytes, min: 1, max: 1, sum: ${sum} }\n`;
  scrapeOnce(acc, { 'obdfilter/OST0': big(2n ** 60n) }, 0);
  scrapeOnce(acc, { 'obdfilter/OST0': big(2n ** 60n + 3n) }, MIN);
  const totals: U64[] = [];
  for (const t of acc.targetViews()) t.samples.forEach((_series, _field, _value, total) => totals.push(total), 'write_bytes');
  assert.deepEqual(totals, [2n ** 60n + 3n]);
});

test('a value above the u64 range rejects its entry as malformed: no increment, nothing counted twice later', () => {
  const acc = newAccumulator();
  const one = (id: string, sum: string): string => `- job_id:          ${id}\n  write_bytes:     { samples: 1, unit: bytes, min: 1, max: 1, sum: ${sum} }\n`;
  scrapeOnce(acc, { 'obdfilter/OST0': `job_stats:\n${one('1:5000:n', '100')}${one('2:5000:n', '10')}` }, 0);
  for (const bad of ['18446744073709551616', '9'.repeat(400)]) {
    const out = scrapeOnce(acc, { 'obdfilter/OST0': `job_stats:\n${one('1:5000:n', bad)}${one('2:5000:n', '20')}` }, MIN);
    assert.equal(out.exported.get(W('1')), 100, 'the rejected entry adds nothing');
    assert.equal(out.exported.get(W('2')), 20, 'the other entries of the file still count');
    assert.equal(out.targets.get('OST0')?.quality.malformed, 1);
    assert.equal(out.targets.get('OST0')?.quality.correct, 1);
  }
  const fixed = scrapeOnce(acc, { 'obdfilter/OST0': `job_stats:\n${one('1:5000:n', '150')}${one('2:5000:n', '20')}` }, 2 * MIN);
  assert.equal(fixed.exported.get(W('1')), 150, 'the entry kept its last good value while rejected');
  assert.equal(fixed.targets.get('OST0')?.quality.malformed, 0);
});

test('max-jobs on the exporter clock: one scraper or one more read the same series, folded jobs and _other', () => {
  // max-jobs 2, expiry 60 s, density window 30 s (the default). Jobs 101 and 102 hold the slots; 101
  // stops at 40 s and expires. Waiting: 103 writes 1/s plus a burst of 100 early in each window, 104
  // writes 8/s. Over a window 104 is the more active (240 vs 130); over 10 s after a burst, 103 (110 vs 80).
  const T0 = 30 * MIN; // a multiple of the window
  const at = (ms: number): string => {
    const s = Math.floor((ms - T0) / 1000);
    const bursts = Math.floor(s / 30) + (s % 30 >= 5 ? 1 : 0);
    return ost(['101:5000:n1', 1000 + 5 * Math.min(s, 40), 9000], ['102:5000:n2', 1000 + 5 * s, 9000 + s], ['103:5000:n3', 1 + s + 100 * bursts, 1 + s], ['104:5000:n4', 1 + 8 * s, 1 + s]);
  };
  const run = (readsPerWindow: number): string[] => {
    const acc = newAccumulator({ maxJobs: 2, expiryMs: MIN });
    const seen: string[] = [];
    for (let n = 0; n < 8; n += 1) {
      // Scraper A at +2 s of each window; the second scraper at +12 s and +22 s.
      for (let r = 0; r < readsPerWindow; r += 1) {
        const now = T0 + n * 30_000 + 2_000 + r * 10_000;
        const out = scrapeOnce(acc, { 'obdfilter/OST0': at(now) }, now);
        if (r === 0) seen.push(JSON.stringify([[...out.exported].sort(), [...out.held].sort(), out.targets.get('OST0')?.folded, out.targets.get('OST0')?.expired]));
      }
    }
    return seen;
  };
  const alone = run(1);
  assert.deepEqual(run(3), alone);
  // Not vacuous: 101 expired, the slot went to 104 (the more active over the window), 103 is folded.
  const last = JSON.parse(alone.at(-1)!) as [[string, number][], [string, number][], number, number];
  const exported = new Map(last[0]);
  assert.equal(last[2], 1);
  assert.equal(last[3], 1);
  assert.equal(exported.get(W('101')), undefined);
  assert.ok((exported.get(W('104')) ?? 0) > 0);
  assert.equal(exported.get(W('103')), undefined);
  assert.ok((exported.get(W('_other', '_other')) ?? 0) > 0);
});

test('waiting jobs: two classes of one series and several reads of a window add up exactly in the group kept for them', () => {
  // Uids 12 and 13 are both `_system`: two job classes, one series (7, _system). Job 1 holds one of two
  // slots; 7 and 8 wait for the other until the window closes (two waiting, one free slot), their
  // groups kept across the window's reads and merged into; at the turn the more active (7) gets it.
  const T0 = 30 * MIN;
  const acc = newAccumulator({ maxJobs: 2 });
  scrapeOnce(acc, { 'obdfilter/OST0': ost(['1:5000:n1', 100, 10_000]) }, T0 + 2_000);
  const reads: [string, number, number][][] = [
    [
      ['1:5000:n1', 101, 10_100],
      ['7:12:n1', 50, 500],
      ['7:13:n2', 40, 400],
      ['8:5000:n3', 10, 100],
    ],
    [
      ['1:5000:n1', 102, 10_200],
      ['7:12:n1', 60, 600],
      ['7:13:n2', 45, 450],
      ['8:5000:n3', 20, 200],
    ],
  ];
  for (const [r, jobs] of reads.entries()) {
    const out = scrapeOnce(acc, { 'obdfilter/OST0': ost(...jobs) }, T0 + 12_000 + r * 10_000);
    assert.equal(out.exported.get(W('7', '_system')), undefined);
    assert.equal(out.held.get(W('7', '_system')), undefined);
  }
  const last = reads.at(-1)!;
  const turn = scrapeOnce(acc, { 'obdfilter/OST0': ost(...last) }, T0 + 32_000);
  assert.equal(turn.held.get(W('7', '_system')), 1050);
  assert.equal(turn.targets.get('OST0')?.folded, 1);
  const after = scrapeOnce(acc, { 'obdfilter/OST0': ost(...last) }, T0 + 42_000);
  assert.equal(after.exported.get(W('7', '_system')), 1050);
  assert.equal(after.exported.get(OPW('7', '_system')), 105);
  assert.equal(after.exported.get(W('_other', '_other')), 200);
  assert.equal(after.exported.get(W('1')), 10_200);
});
