// `jobio top` against a real Prometheus scraping the built exporter while the Lustre tree changes:
// the exact table rows per job (lustre_jobstats) and per client mapped NID → host → job
// (lustre_exports, a NID map file and a fake squeue), a hostile job id that must stay a string
// literal in PromQL, and an unreachable Prometheus (exit 1, clear message).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio, startExporter, type RunningExporter } from '../helpers/exporter.js';
import { freePort, startPrometheus, type RunningPrometheus } from '../helpers/prometheus.js';
import { treePaths, withoutTitle, writeSnapshot, type Snapshot } from './tree.js';

// Everything is born after the exporter's first collection (snapshot 0 is empty), so increase()
// over a window holding the whole run, evaluated at the last sample, is exact (see series-book.ts).
const snapshots: Snapshot[] = [
  { jobs: {}, clients: {} },
  {
    jobs: { '101:5000:n1': { wrMiB: 2 }, '101:5000:n2': { wrMiB: 1 }, '202:5001:n3': { rdMiB: 4 } },
    clients: { '10.0.0.1@tcp': { wrMiB: 2 }, '10.0.0.2@tcp': { wrMiB: 1 }, '10.0.0.3@tcp': { rdMiB: 4 }, '10.0.0.9@tcp': { wrMiB: 1 } },
  },
  {
    jobs: { '101:5000:n1': { wrMiB: 5 }, '101:5000:n2': { wrMiB: 1 }, '202:5001:n3': { rdMiB: 6 } },
    clients: { '10.0.0.1@tcp': { wrMiB: 5 }, '10.0.0.2@tcp': { wrMiB: 1 }, '10.0.0.3@tcp': { rdMiB: 6 }, '10.0.0.9@tcp': { wrMiB: 1 } },
  },
];

let root = '';
let exporter: RunningExporter | undefined;
let prom: RunningPrometheus | undefined;
let at = 0;

async function scrapedAfter(p: RunningPrometheus, afterMs: number): Promise<number> {
  const [sample] = await p.waitFor('min(timestamp(jobio_scrape_collector_success{collector=~"lustre_jobstats|lustre_exports"}))', (s) => (s[0]?.value ?? 0) * 1000 > afterMs + 50, 30_000);
  return sample!.value;
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'jobio-top-'));
  writeSnapshot(root, snapshots[0]!);
  exporter = await startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', '--collector.lustre_exports', ...treePaths(root)]);
  prom = await startPrometheus([{ job: 'lustre', address: `127.0.0.1:${exporter.port}` }], { scrapeInterval: '1s' });
  let last = await scrapedAfter(prom, 0);
  for (const snapshot of snapshots.slice(1)) {
    const writtenAt = Date.now();
    writeSnapshot(root, snapshot);
    last = await scrapedAfter(prom, writtenAt);
  }
  // One more scrape, so series born in the last one show their first increment.
  at = await scrapedAfter(prom, last * 1000 + 10);
});

after(async () => {
  await prom?.stop();
  await exporter?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

// A flag may be given once: a test's own --limit replaces the default one here.
// The title line is checked and left out: the tests compare the tables.
const top = async (...args: string[]) => {
  const result = await runJobio(['top', '--prometheus', prom!.url, '--once', '--interval', '10m', '--time', String(at), ...(args.includes('--limit') ? [] : ['--limit', '0']), ...args]);
  return { ...result, stdout: withoutTitle(result.stdout) };
};

test('jobio top --prometheus: exact per-job rows from jobstats', async () => {
  const result = await top();
  assert.equal(result.stderr, '');
  assert.equal(result.code, 0);
  assert.equal(
    result.stdout,
    ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS', '101    6.0    0.0     6         0  alice        1', '202    0.0    6.0     6         0  bob          1', ''].join('\n'),
  );
  const sorted = await top('--sort', 'rd', '--limit', '1');
  assert.equal(sorted.stdout, ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS', '202    0.0    6.0     6         0  bob          1', ''].join('\n'));
});

test('jobio top --prometheus --by client: NID → host (map file, FQDN) → job (fake squeue), unmapped NID is its own job', async () => {
  const nidMap = join(root, 'nids.txt');
  writeFileSync(nidMap, '# nid host\n10.0.0.1@tcp n1\n10.0.0.2@tcp n2\n10.0.0.3@tcp n3.cluster.example\n');
  const squeue = join(root, 'fake-squeue');
  writeFileSync(squeue, "#!/bin/sh\nprintf '101 alice n[1-2]\\n202 bob n3\\n'\n");
  chmodSync(squeue, 0o755);
  const result = await top('--by', 'client', '--nid-map', nidMap, '--job-map-command', squeue);
  assert.equal(result.stderr, '');
  assert.equal(result.code, 0);
  assert.equal(
    result.stdout,
    [
      'JOB           WR_MB  RD_MB  REQS  MDT_REQS  OWNER  HOSTS  TARGETS',
      '101             6.0    0.0     6         0  alice      2        1',
      '202             0.0    6.0     6         0  bob        1        1',
      '10.0.0.9@tcp    1.0    0.0     1         0  -          1        1',
      '',
    ].join('\n'),
  );
  // Without a job map command that works, hosts are their own jobs (and stderr says why).
  const noJobs = await top('--by', 'client', '--nid-map', nidMap, '--job-map-command', 'false');
  assert.equal(noJobs.code, 0);
  assert.match(noJobs.stdout, /^n1 +5\.0 +0\.0 +5 +0 +- +1 +1$/m);
  assert.match(noJobs.stderr, /no job map/);
});

test('jobio top --prometheus: label values are escaped in PromQL (hostile job id)', async () => {
  const only = await top('--jobid', '101');
  assert.equal(only.stdout.split('\n')[1], '101    6.0    0.0     6         0  alice        1');
  for (const hostile of ['x"}) or vector(1) #', 'a\\"b', '101"} or jobio_lustre_jobstats_write_bytes_total{jobid="202']) {
    const result = await top('--jobid', hostile);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS\n', `no rows for ${JSON.stringify(hostile)}`);
  }
});

test('jobio top: a flag that does nothing in the chosen mode exits 2 naming it, instead of printing a table for another question', async () => {
  const prometheus = ['--prometheus', 'http://127.0.0.1:1', '--once'];
  const cases: Array<[string[], string]> = [
    [[...prometheus, '--by', 'client', '--jobid', '101'], '--jobid works with --by job only'],
    [[...prometheus, '--nid-map', 'nids.txt'], '--nid-map works with --by client only'],
    [[...prometheus, '--job-map-command', 'squeue'], '--job-map-command works with --by client only'],
    [['--exporter', 'http://127.0.0.1:1/', '--once', '--time', '1700000000'], '--time works with --prometheus only'],
  ];
  for (const [args, message] of cases) {
    const bad = await runJobio(['top', ...args]);
    assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.ok(bad.stderr.startsWith(`jobio top: ${message}`), bad.stderr);
  }
});

test('jobio top --prometheus on a Prometheus without jobio series: the empty table comes with a hint on stderr, exit 0', async () => {
  const empty = await startPrometheus([]);
  try {
    const result = await runJobio(['top', '--prometheus', empty.url, '--once']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(withoutTitle(result.stdout), 'JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS\n');
    assert.equal(
      result.stderr,
      `jobio top: Prometheus at ${empty.url} has no jobio_lustre_jobstats_operations_total series at all: the table stays empty until it has some (the lustre_jobstats collector on the Lustre servers' exporters, scraped by this Prometheus)\n`,
    );
  } finally {
    await empty.stop();
  }
  // A Prometheus that has the series, with a job filter matching none: empty, and no hint.
  const none = await top('--jobid', 'no-such-job');
  assert.equal(none.stdout, 'JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS\n');
  assert.equal(none.stderr, '');
});

test('jobio top: unreachable Prometheus exits 1 with a clear message; bad flags exit 2', async () => {
  const port = await freePort();
  const result = await runJobio(['top', '--prometheus', `http://127.0.0.1:${port}`, '--once']);
  assert.equal(result.code, 1);
  assert.match(result.stderr, new RegExp(`^jobio top: cannot reach Prometheus at http://127\\.0\\.0\\.1:${port}: ECONNREFUSED\\n$`));
  for (const args of [
    ['--once'],
    ['--prometheus', 'x', '--exporter', 'http://127.0.0.1:1/'],
    ['--prometheus', 'http://127.0.0.1:1', '--interval', 'soon'],
    ['--prometheus', 'http://127.0.0.1:1', '--sort', 'size'],
    ['--prometheus', 'http://127.0.0.1:1', '--limit', '-1'],
    ['--prometheus', 'http://127.0.0.1:1', '--by', 'host'],
    ['--prometheus', 'ftp://127.0.0.1:1'],
    ['--exporter', 'file:///etc/passwd'],
    ['--bogus'],
  ]) {
    const bad = await runJobio(['top', ...args]);
    assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.stderr}`);
    assert.notEqual(bad.stderr, '');
  }
  const help = await runJobio(['top', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--prometheus <url>/);
});
