// `jobio top --columns` with ACCOUNT and WORKDIR: the scheduler metadata of each job from
// jobio_job_info, exported by a compute node's exporter (collector job_info on a root-owned spool)
// next to an OSS exporter's jobstats. From a real Prometheus (one instant query) and from the same
// exporter scrapes that give the increments (ExporterSource driven step by step); bad --columns exit 2.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { ExporterSource } from '../../exporter/src/top/exporter-source.js';
import { formatTable, jobRows, sortRows } from '../../exporter/src/top/table.js';
import { treePaths, withoutTitle, writeSnapshot } from './tree.js';

const asRoot = process.getuid?.() === 0;
const skip = asRoot ? false : 'the job spool is believed only when root-owned';

let root = '';
let oss: RunningExporter | undefined;
let node: RunningExporter | undefined;
let prom: RunningPrometheus | undefined;
let at = 0;

before(async () => {
  if (!asRoot) return;
  root = mkdtempSync(join(tmpdir(), 'jobio-top-columns-'));
  writeSnapshot(root, { jobs: {}, clients: {} });
  const spool = join(root, 'jobs');
  mkdirSync(spool);
  chmodSync(spool, 0o755);
  writeFileSync(join(spool, '101'), 'uid=5000\naccount=proj_ocean\npartition=compute\njob_name=ocean\nwork_dir=/home/alice/ocean run\n', { mode: 0o644 });
  writeFileSync(join(spool, '202'), 'uid=5001\naccount=proj_gen\npartition=gpu\njob_name=align\nwork_dir=/scratch/bob\n', { mode: 0o644 });
  oss = await startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', ...treePaths(root)]);
  node = await startExporter(['--collector.disable-defaults', '--collector.job_info', '--collector.job_info.squeue=', `--collector.job_info.spool-dir=${spool}`]);
  prom = await startPrometheus(
    [
      { job: 'oss', address: `127.0.0.1:${oss.port}` },
      { job: 'node', address: `127.0.0.1:${node.port}` },
    ],
    { scrapeInterval: '1s' },
  );
  const scraped = async (afterMs: number): Promise<number> => {
    const [s] = await prom!.waitFor('min(timestamp(jobio_scrape_collector_success{collector=~"lustre_jobstats|job_info"}))', (x) => (x[0]?.value ?? 0) * 1000 > afterMs + 50, 30_000);
    return s!.value;
  };
  // Jobs born after the exporter's first collection, then grown: increase() over the run is exact.
  let last = await scraped(0);
  for (const jobs of [
    { '101:5000:n1': { wrMiB: 1 }, '202:5001:n3': { rdMiB: 1 }, '303:5000:n4': { wrMiB: 1 } },
    { '101:5000:n1': { wrMiB: 3 }, '202:5001:n3': { rdMiB: 2 }, '303:5000:n4': { wrMiB: 2 } },
  ]) {
    const writtenAt = Date.now();
    writeSnapshot(root, { jobs, clients: {} });
    last = await scraped(writtenAt);
  }
  at = await scraped(last * 1000 + 10);
});

after(async () => {
  await prom?.stop();
  await oss?.stop();
  await node?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

test('jobio top --prometheus --columns: ACCOUNT and WORKDIR from jobio_job_info', { skip }, async () => {
  const result = await runJobio(['top', '--prometheus', prom!.url, '--once', '--interval', '10m', '--time', String(at), '--sort', 'job', '--columns', 'JOB,OWNER,ACCOUNT,WORKDIR']);
  assert.equal(result.code, 0, result.stderr);
  // The byte columns are left out: jobio top's own tests check them; here only the join matters.
  assert.equal(
    withoutTitle(result.stdout),
    ['JOB  OWNER  ACCOUNT     WORKDIR', '101  alice  proj_ocean  /home/alice/ocean run', '202  bob    proj_gen    /scratch/bob', '303  alice  -           -', ''].join('\n'),
  );
});

test('jobio top --exporter: ACCOUNT and WORKDIR from the same scrapes; a job without jobio_job_info shows -', { skip }, async () => {
  const source = new ExporterSource([`${oss!.url}/metrics`, `${node!.url}/metrics`], 'job', {}, 10_000, true);
  assert.equal(await source.next(), undefined);
  writeSnapshot(root, { jobs: { '101:5000:n1': { wrMiB: 4 }, '202:5001:n3': { rdMiB: 2 }, '303:5000:n4': { wrMiB: 3 } }, clients: {} });
  // The exporter reads job_stats at each scrape, but a scrape already running for the Prometheus of
  // these tests (scrapes are single-flight) is shared and read the old file: the next one sees it.
  let increments = (await source.next()) ?? [];
  for (let i = 0; i < 5 && increments.length === 0; i++) increments = (await source.next()) ?? [];
  const table = formatTable(sortRows(jobRows(increments), 'job'), 'job', 0, ['JOB', 'WR_MB', 'ACCOUNT', 'WORKDIR'], source.jobInfo);
  assert.equal(table, ['JOB  WR_MB  ACCOUNT     WORKDIR', '101    1.0  proj_ocean  /home/alice/ocean run', '303    1.0  -           -', ''].join('\n'));
  // 202 did not change: no row.
});

test('jobio top --columns: unknown or mode-less columns exit 2 naming the allowed ones; the default columns', async () => {
  const bad = await runJobio(['top', '--exporter', 'http://127.0.0.1:9/metrics', '--once', '--columns', 'JOB,FOO']);
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'jobio top: --columns: unknown column FOO (with --by job: JOB, WR_MB, RD_MB, REQS, MDT_REQS, OWNER, ACCOUNT, TARGETS, WORKDIR)\n');
  const hosts = await runJobio(['top', '--exporter', 'http://127.0.0.1:9/metrics', '--once', '--columns', 'JOB,HOSTS']);
  assert.equal(hosts.code, 2);
  assert.match(hosts.stderr, /unknown column HOSTS \(with --by job:/);
  const empty = await runJobio(['top', '--exporter', 'http://127.0.0.1:9/metrics', '--once', '--columns', ',']);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--columns: no column given/);
  const twice = await runJobio(['top', '--exporter', 'http://127.0.0.1:9/metrics', '--once', '--columns', 'JOB,wr_mb,WR_MB']);
  assert.equal(twice.code, 2);
  assert.equal(twice.stderr, 'jobio top: --columns: WR_MB given twice\n');
  assert.equal(formatTable([], 'client', 0), 'JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  HOSTS  TARGETS\n');
});
