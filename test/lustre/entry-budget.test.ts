// Item: memory and time of job_stats bounded across targets. Synthetic huge job_stats files written by
// the test: a global budget of remembered entries (max-total-entries) that no set of targets can pass
// and that leaves small targets their room; and a read deadline that cuts one huge target without
// taking the series of the others with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import { lustreJobStatsCollector } from '../../exporter/src/collectors/lustre_jobstats.js';
import { JobStatsAccumulator, type TargetView } from '../../exporter/src/lustre/jobstats-accumulator.js';
import { compileJobIdFormats } from '../../exporter/src/lustre/jobid-format.js';
import { readJobStatsFile } from '../../exporter/src/lustre/jobstats-files.js';

/** `count` entries `<first..>:5000:n1`, each with `bytes` written. */
function entries(first: number, count: number, bytes: number): string {
  const parts = ['job_stats:\n'];
  for (let i = first; i < first + count; i += 1) parts.push(`- job_id:          ${i}:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`);
  return parts.join('');
}

const value = (text: string, series: string): number =>
  Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${series} `))
      ?.split(' ')[1],
  );

test('max-total-entries: four 20,000-entry targets and a small one hold at most the budget, the small one keeps all its entries', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-budget-'));
  try {
    const huge = ['fs-OST0000', 'fs-OST0001', 'fs-OST0002', 'fs-OST0003'];
    for (const [i, name] of huge.entries()) {
      mkdirSync(join(root, 'proc/fs/lustre/obdfilter', name), { recursive: true });
      writeFileSync(join(root, 'proc/fs/lustre/obdfilter', name, 'job_stats'), entries(100_000 * (i + 1), 20_000, 10));
    }
    mkdirSync(join(root, 'proc/fs/lustre/mdt/fs-MDT0000'), { recursive: true });
    const small = (bytes: number): void => writeFileSync(join(root, 'proc/fs/lustre/mdt/fs-MDT0000/job_stats'), entries(7, 50, bytes));
    small(10);
    const registry = new MetricRegistry();
    const logs: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn', base: undefined }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
    // Budget 10,000 over max-targets 5: each target may always hold 1,000, the other 5,000 are shared.
    const options = { getent: false, 'max-targets': 5, 'max-total-entries': 10_000 };
    const c = lustreJobStatsCollector.create({ registry, paths: { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root }, options, logger });
    assert.equal(await c.update(new AbortController().signal), 'ok');
    small(25);
    assert.equal(await c.update(new AbortController().signal), 'ok');
    const text = await registry.metrics();
    const held = huge.map((target) => value(text, `jobio_lustre_jobstats_entries{target="${target}",quality="correct",uid_class="non_system"}`));
    for (const h of held) assert.ok(h >= 1000 && h <= 6000, `each huge target holds its floor and at most floor + pool: ${held.join(', ')}`);
    assert.equal(
      held.reduce((a, b) => a + b, 0),
      4 * 1000 + 5000,
      'the huge targets together: their floors and the whole shared pool',
    );
    assert.equal(value(text, 'jobio_lustre_jobstats_entries{target="fs-MDT0000",quality="correct",uid_class="non_system"}'), 50, 'the small target keeps room for every entry');
    assert.equal(value(text, 'jobio_lustre_jobstats_write_bytes_total{target="fs-MDT0000",jobid="7",user="uid:5000"}'), 25, 'and its counts are exact');
    const dropped = huge.map((target) => value(text, `jobio_lustre_jobstats_dropped_entries_total{target="${target}"}`)).reduce((a, b) => a + b, 0);
    assert.equal(dropped, 2 * (4 * 20_000 - 9000), 'every entry not remembered is counted, each scrape');
    const warned = logs.filter((l) => /max-total-entries/.test(String(l.msg)));
    assert.deepEqual(
      warned.map((l) => [l.dropped, l.maxTotalEntries]),
      [
        [71_000, 10_000],
        [71_000, 10_000],
      ],
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a job_stats read past its deadline is cut and counted; what was read counts, the rest and the other targets keep their values', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-deadline-'));
  try {
    const hugePath = join(root, 'huge');
    const smallPath = join(root, 'small');
    // ~3.3 MiB: the first 1 MiB chunk holds about 9,000 of the 30,000 entries.
    const write = (bytes: number): void => {
      writeFileSync(hugePath, entries(1000, 30_000, bytes));
      writeFileSync(smallPath, entries(7, 3, bytes));
    };
    const acc = new JobStatsAccumulator({ maxJobs: 100_000, expiryMs: 3_600_000, formats: compileJobIdFormats('%j:%u:%H') });
    const huge = { ref: { kind: 'obdfilter', name: 'fs-OST0000' }, path: hugePath };
    const small = { ref: { kind: 'obdfilter', name: 'fs-OST0001' }, path: smallPath };
    const scrape = async (expiredAfterChunks: number): Promise<{ cut: string | undefined; bytes: number }> => {
      acc.begin();
      let chunks = 0;
      const outcome = await readJobStatsFile(huge, acc.read(huge.ref), 1 << 30, undefined, undefined, () => (chunks += 1) >= expiredAfterChunks);
      assert.deepEqual(await readJobStatsFile(small, acc.read(small.ref), 1 << 30), { bytes: statSync(smallPath).size, cut: undefined });
      acc.finish(Date.now(), (uid) => `uid:${uid}`);
      assert.ok('cut' in outcome);
      return { cut: outcome.cut, bytes: outcome.bytes };
    };
    const view = (name: string): TargetView => [...acc.targetViews()].find((t) => t.name === name)!;
    write(10);
    assert.deepEqual(await scrape(Number.POSITIVE_INFINITY), { cut: undefined, bytes: statSync(hugePath).size });
    assert.equal(view('fs-OST0000').quality.correct, 30_000);
    write(11);
    const cut = await scrape(1);
    assert.deepEqual(cut, { cut: 'timeout', bytes: 1 << 20 }, 'stopped after the first chunk');
    const read = view('fs-OST0000').quality.correct;
    assert.ok(read > 5000 && read < 15_000, `entries in the first MiB: ${read}`);
    assert.deepEqual(view('fs-OST0000').truncatedReads, { max_file_bytes: 0, timeout: 1 });
    assert.deepEqual(view('fs-OST0001').truncatedReads, { max_file_bytes: 0, timeout: 0 });
    // Each entry read moved by 1 byte; the small target is served whole.
    const total = (name: string): number => {
      let sum = 0;
      view(name).samples.forEach((_series, field, _value, t) => {
        if (field.kind === 'write_bytes') sum += Number(t);
      });
      return sum;
    };
    assert.equal(total('fs-OST0000'), 30_000 * 10 + read, 'the entries beyond the cut are not counted yet, nor forgotten');
    assert.equal(total('fs-OST0001'), 3 * 11);
    // The next full read credits the entries beyond the cut exactly once.
    write(12);
    assert.deepEqual((await scrape(Number.POSITIVE_INFINITY)).cut, undefined);
    assert.equal(total('fs-OST0000'), 30_000 * 12);
    assert.equal(total('fs-OST0001'), 3 * 12);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
