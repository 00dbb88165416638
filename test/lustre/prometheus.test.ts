// A real Prometheus scrapes the built exporter while the job_stats file changes under it: jobs grow,
// one host's entry is dropped by Lustre and comes back from zero, a job restarts (new start_time),
// a malformed id appears, max-jobs=2 folds a job into _other. Through the query API, increase() over
// the whole run equals the true total of every job, no series ever resets, and sum over jobid equals
// the file's total. New series are born at 0 (see series-book.ts), so increase() needs no guessing:
// evaluated at the last sample it is exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter } from '../helpers/exporter.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { jobStatsText, type GeneratedJob } from './generate-jobstats.js';
import { jobStatsExporterArgs, replaceJobStats, scrapedAfter } from './replay.js';

const OPS = ['read_bytes', 'write_bytes', 'read', 'write', 'punch'] as const;

function job(id: string, writes: number, bytes: number, startTime = 1000): GeneratedJob {
  return { id, samples: { write_bytes: writes, write: writes }, sums: { write_bytes: bytes, write: writes * 10 }, startTime };
}

// The history of the file, one snapshot per step. Expected increments per jobid (with max-jobs=2):
//   1 (hosts n1+n2): 1500 + 2000 + 0 + 300 (n1 back from zero) = 3800 bytes, 15 + 10 + 0 + 3 = 28 writes
//   2: 400 + 500 + 50 (restarted: new start_time) = 950 bytes, 4 + 4 + 1 = 9 writes
//   3 (no free slot: _other) 100 + 200 + 500, and the malformed "junk id" 200 → _other = 1000 bytes; 1 + 1 + 3 + 2 = 7 writes
const snapshots: GeneratedJob[][] = [
  [],
  [job('1:5000:n1', 10, 1000), job('1:5000:n2', 5, 500)],
  [job('1:5000:n1', 20, 3000), job('1:5000:n2', 5, 500), job('2:5001:n1', 4, 400), job('3:5000:n1', 1, 100)],
  [job('1:5000:n2', 5, 500), job('2:5001:n1', 8, 900), job('3:5000:n1', 2, 300)],
  [job('1:5000:n1', 3, 300, 2000), job('1:5000:n2', 5, 500), job('2:5001:n1', 1, 50, 3000), job('3:5000:n1', 5, 800), job('junk id', 2, 200)],
  [job('1:5000:n1', 3, 300, 2000), job('1:5000:n2', 5, 500), job('2:5001:n1', 1, 50, 3000), job('3:5000:n1', 5, 800), job('junk id', 2, 200)],
];
const expectedBytes: Record<string, number> = { '1': 3800, '2': 950, _other: 1000 };
const expectedWrites: Record<string, number> = { '1': 28, '2': 9, _other: 7 };

test("real Prometheus: increase() over the run equals every job's true total, across cleanup, restart and folding", async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-lustre-prom-'));
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  const write = (jobs: GeneratedJob[]): void => {
    replaceJobStats(dir, jobStatsText(jobs, '2.14', OPS));
  };
  write(snapshots[0]!);
  // Under the cap, waiting jobs get a slot (or fold into _other) when a density window closes on the
  // exporter's clock; a 2 s window keeps the run short.
  const exporter = await startExporter([...jobStatsExporterArgs(root), '--collector.lustre_jobstats.max-jobs=2', '--collector.lustre_jobstats.density-window=2s']);
  let prom: RunningPrometheus | undefined;
  try {
    prom = await startPrometheus([{ job: 'lustre', address: `127.0.0.1:${exporter.port}` }], { scrapeInterval: '1s' });
    let last = await scrapedAfter(prom, 0);
    for (const snapshot of snapshots.slice(1)) {
      const writtenAt = Date.now();
      write(snapshot);
      last = await scrapedAfter(prom, writtenAt);
    }
    // Scrapes after two more window closes: the held increments of the last window are handed out, and
    // the first increment of the last born series is visible too.
    last = await scrapedAfter(prom, Date.now() + 4_500);
    last = await scrapedAfter(prom, last * 1000 + 10);
    const at = last;
    const byJob = async (expr: string): Promise<Record<string, number>> => Object.fromEntries((await prom!.query(expr, at)).map((s) => [s.metric.jobid ?? '', s.value]));

    assert.deepEqual(await byJob('increase(jobio_lustre_jobstats_write_bytes_total{target="fs-OST0000"}[10m])'), expectedBytes);
    assert.deepEqual(await byJob('increase(jobio_lustre_jobstats_operations_total{target="fs-OST0000",operation="write"}[10m])'), expectedWrites);
    const [sum] = await prom.query('sum(increase(jobio_lustre_jobstats_write_bytes_total[10m]))', at);
    assert.equal(sum?.value, 5750);
    const [resets] = await prom.query('sum(resets(jobio_lustre_jobstats_write_bytes_total[10m])) + sum(resets(jobio_lustre_jobstats_operations_total[10m]))', at);
    assert.equal(resets?.value, 0, 'no exported counter ever went down');
    const [malformed] = await prom.query('jobio_lustre_jobstats_entries{quality="malformed"}', at);
    assert.equal(malformed?.value, 1);
    const users = Object.fromEntries((await prom.query('jobio_lustre_jobstats_write_bytes_total', at)).map((s) => [s.metric.jobid ?? '', s.metric.user]));
    assert.deepEqual(users, { '1': 'alice', '2': 'bob', _other: '_other' });
  } finally {
    await prom?.stop();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
