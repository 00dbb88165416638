// Two real Prometheus replicas (an HA pair: the same target, different external labels, so different
// scrape offsets) scrape one exporter while job_stats changes under it between their scrapes: jobs
// appear, grow and end. With --collector.lustre_jobstats.new-series-grace longer than two scrape
// intervals every new counter is exported at 0 until both replicas have seen it, so each holds every
// series' start at 0 and increase() over the run is each job's true total in both (docs/metrics.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startExporter } from '../helpers/exporter.js';
import { startPrometheusWithConfig, type RunningPrometheus } from '../helpers/prometheus.js';
import { jobStatsText, type GeneratedJob } from '../lustre/generate-jobstats.js';
import { jobStatsExporterArgs, replaceJobStats, scrapedAfter } from '../lustre/replay.js';

const OPS = ['read_bytes', 'write_bytes', 'read', 'write', 'punch'] as const;
const INTERVAL_S = 2;
const GRACE = '5s';
const SNAPSHOT_MS = 3300;

const job = (id: string, writes: number): GeneratedJob => ({ id, samples: { write_bytes: writes, write: writes }, sums: { write_bytes: writes * 4096, write: writes * 10 } });

// One snapshot every 3.3 s (not a multiple of the scrape interval, and longer than it: the exporter
// reads job_stats when scraped, so a snapshot no scrape saw would be no truth of the exporter's;
// at 1.3 s job 12's 300 writes were once never read), after an empty file at the exporter's first
// read: job 11 runs throughout, 12 starts and ends, 13 and 14 start late, 14 ends before the last
// snapshot. A job's total is its last value.
const snapshots: GeneratedJob[][] = [
  [],
  [job('11:5000:n1', 10)],
  [job('11:5000:n1', 40), job('12:5001:n1', 7)],
  [job('11:5000:n1', 90), job('12:5001:n1', 300), job('13:5000:n2', 5)],
  [job('11:5000:n1', 95), job('13:5000:n2', 600)],
  [job('11:5000:n1', 170), job('13:5000:n2', 610), job('14:5001:n2', 3)],
  [job('11:5000:n1', 200), job('13:5000:n2', 900), job('14:5001:n2', 250)],
  [job('11:5000:n1', 260), job('13:5000:n2', 950)],
];
const truthWrites: Record<string, number> = { '11': 260, '12': 300, '13': 950, '14': 250 };

function replicaConfig(replica: string, address: string): string {
  return [
    'global:',
    `  scrape_interval: ${INTERVAL_S}s`,
    `  evaluation_interval: ${INTERVAL_S}s`,
    // The scrape offset derives from the external labels: the replicas scrape at different moments.
    `  external_labels: { replica: ${replica} }`,
    'scrape_configs:',
    '  - job_name: lustre',
    `    static_configs: [{ targets: [${JSON.stringify(address)}] }]`,
    '',
  ].join('\n');
}

test('HA pair: both replicas see every new job start at 0; per-job increase() equal in both and to the job_stats truth', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-ha-'));
  const dir = join(root, 'proc/fs/lustre/obdfilter/fs-OST0000');
  mkdirSync(dir, { recursive: true });
  const write = (jobs: GeneratedJob[]): void => {
    replaceJobStats(dir, jobStatsText(jobs, '2.14', OPS));
  };
  write(snapshots[0]!);
  const exporter = await startExporter([...jobStatsExporterArgs(root), `--collector.lustre_jobstats.new-series-grace=${GRACE}`]);
  const replicas: RunningPrometheus[] = [];
  try {
    for (const name of ['a', 'b']) replicas.push(await startPrometheusWithConfig(replicaConfig(name, `127.0.0.1:${exporter.port}`)));
    for (const r of replicas) await scrapedAfter(r, 0);
    for (const snapshot of snapshots.slice(1)) {
      await new Promise((r) => setTimeout(r, SNAPSHOT_MS));
      write(snapshot);
    }
    // The grace of the last job born, then two more scrapes: every counter shows its value in both.
    const done = Date.now() + 5000 + 2 * INTERVAL_S * 1000;
    await new Promise((r) => setTimeout(r, done - Date.now()));
    const results: Record<string, number>[] = [];
    for (const r of replicas) {
      // Evaluated at the replica's own last scrape: increase() needs no extrapolation there.
      const at = await scrapedAfter(r, done);
      const byJob = async (expr: string): Promise<Record<string, number>> => Object.fromEntries((await r.query(expr, at)).map((s) => [s.metric.jobid ?? '', s.value]));
      // Every job's series starts at 0 in this replica.
      const firsts = await byJob('min_over_time(jobio_lustre_jobstats_operations_total{operation="write"}[10m])');
      assert.deepEqual(firsts, { '11': 0, '12': 0, '13': 0, '14': 0 });
      const writes = await byJob('increase(jobio_lustre_jobstats_operations_total{operation="write"}[10m])');
      const bytes = await byJob('increase(jobio_lustre_jobstats_write_bytes_total[10m])');
      for (const [jobid, truth] of Object.entries(truthWrites)) {
        assert.ok(Math.abs((writes[jobid] ?? 0) - truth) <= truth * 0.01, `job ${jobid}: ${writes[jobid]} writes, truth ${truth}`);
        assert.ok(Math.abs((bytes[jobid] ?? 0) - truth * 4096) <= truth * 4096 * 0.01, `job ${jobid}: ${bytes[jobid]} bytes, truth ${truth * 4096}`);
      }
      results.push(writes);
    }
    assert.deepEqual(results[0], results[1]);
  } finally {
    for (const r of replicas) await r.stop();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
