// `jobio top --exporter`: deltas between two scrapes of the built exporters, computed locally. The
// ExporterSource is driven step by step (exact, no timing); the CLI runs once end to end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobioBin, runJobio, startExporter } from '../helpers/exporter.js';
import { freePort } from '../helpers/prometheus.js';
import bcrypt from 'bcryptjs';
import { ExporterSource } from '../../exporter/src/top/exporter-source.js';
import { ClientMapper } from '../../exporter/src/top/client-map.js';
import { clientRows, formatTable, jobRows, sortRows } from '../../exporter/src/top/table.js';
import { treePaths, withoutTitle, writeSnapshot } from './tree.js';

async function withExporters<T>(count: number, fn: (roots: string[], urls: string[]) => Promise<T>): Promise<T> {
  const roots = Array.from({ length: count }, () => mkdtempSync(join(tmpdir(), 'jobio-top-exp-')));
  for (const root of roots) writeSnapshot(root, { jobs: {}, clients: {} });
  const exporters = await Promise.all(roots.map((root) => startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', '--collector.lustre_exports', ...treePaths(root)])));
  try {
    return await fn(
      roots,
      exporters.map((e) => `${e.url}/metrics`),
    );
  } finally {
    await Promise.all(exporters.map((e) => e.stop()));
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  }
}

test('exporter mode: per-job deltas summed over two OSS exporters, new jobs credited whole', async () => {
  await withExporters(2, async ([a, b], urls) => {
    writeSnapshot(a!, { jobs: { '101:5000:n1': { wrMiB: 4 } }, clients: {} });
    writeSnapshot(b!, { jobs: { '101:5000:n1': { wrMiB: 1 } }, clients: {} });
    const source = new ExporterSource(urls, 'job', {}, 5000);
    assert.equal(await source.next(), undefined, 'the first scrape only gives starting values');
    writeSnapshot(a!, { jobs: { '101:5000:n1': { wrMiB: 6 }, '303:5001:n4': { rdMiB: 3 } }, clients: {} });
    writeSnapshot(b!, { jobs: { '101:5000:n1': { wrMiB: 2 } }, clients: {} });
    // 303 is born at 0 in this scrape (its first increment shows in the next one).
    const first = formatTable(sortRows(jobRows((await source.next())!), 'wr'), 'job', 0);
    assert.equal(first, ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS', '101    3.0    0.0     3         0  alice        1', ''].join('\n'));
    const second = formatTable(sortRows(jobRows((await source.next())!), 'wr'), 'job', 0);
    assert.equal(second, ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS', '303    0.0    3.0     3         0  bob          1', ''].join('\n'));
  });
});

test('exporter mode --by client: NID map and job map files', async () => {
  await withExporters(1, async ([a], urls) => {
    const maps = mkdtempSync(join(tmpdir(), 'jobio-top-maps-'));
    try {
      writeFileSync(join(maps, 'nids'), '10.0.0.1@tcp n1\n10.0.0.2@tcp n2\n');
      writeFileSync(join(maps, 'jobs'), '77 n[1-2]\n');
      writeSnapshot(a!, { jobs: {}, clients: { '10.0.0.1@tcp': { wrMiB: 1 }, '10.0.0.2@tcp': { rdMiB: 1 } } });
      const source = new ExporterSource(urls, 'client', {}, 5000);
      await source.next(); // baseline; both clients born at 0 here
      await source.next();
      writeSnapshot(a!, { jobs: {}, clients: { '10.0.0.1@tcp': { wrMiB: 3 }, '10.0.0.2@tcp': { rdMiB: 2 }, '10.0.0.5@tcp': { wrMiB: 9 } } });
      const mapper = new ClientMapper({ nidMapFile: join(maps, 'nids'), jobMapFile: join(maps, 'jobs') });
      await mapper.refresh();
      const table = formatTable(sortRows(await clientRows((await source.next())!, mapper), 'job'), 'client', 0);
      // 10.0.0.5 connected in this interval: born at 0, it shows as an unmapped NID with nothing yet.
      assert.equal(table, ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  HOSTS  TARGETS', '77     2.0    1.0     3         0  -          2        1', ''].join('\n'));
    } finally {
      rmSync(maps, { recursive: true, force: true });
    }
  });
});

/** An HTTP proxy to `target` (a /metrics URL) whose `firstScrape` resolves once one scrape was answered. */
async function scrapeProxy(target: string): Promise<{ base: string; firstScrape: Promise<void>; server: Server }> {
  let answered!: () => void;
  const firstScrape = new Promise<void>((resolve) => (answered = resolve));
  const server = createServer((req, res) => {
    void fetch(target).then(async (upstream) => {
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' });
      res.end(await upstream.text());
      answered();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, firstScrape, server };
}

test('jobio top --exporter --once: the CLI end to end', async () => {
  await withExporters(1, async ([a], urls) => {
    writeSnapshot(a!, { jobs: { '101:5000:n1': { wrMiB: 1 } }, clients: {} });
    // jobio top scrapes through a pass-through proxy that says when its first scrape is answered, so
    // the change lands inside the interval however slow the machine is (no fixed sleep).
    const proxy = await scrapeProxy(urls[0]!);
    const run = runJobio(['top', '--exporter', proxy.base, '--once', '--interval', '10s']);
    await proxy.firstScrape;
    writeSnapshot(a!, { jobs: { '101:5000:n1': { wrMiB: 5 } }, clients: {} });
    const result = await run;
    proxy.server.close();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(withoutTitle(result.stdout), ['JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS', '101    4.0    0.0     4         0  alice        1', ''].join('\n'));
  });
  const port = await freePort();
  const down = await runJobio(['top', '--exporter', `http://127.0.0.1:${port}/metrics`, '--once', '--interval', '1s']);
  assert.equal(down.code, 1);
  assert.equal(down.stderr, `jobio top: cannot scrape exporter http://127.0.0.1:${port}/metrics: ECONNREFUSED\n`);
  // host:port alone, as the help allows: http:// and /metrics are added (it used to fail with "unknown scheme").
  const bare = await runJobio(['top', '--exporter', `127.0.0.1:${port}`, '--once', '--interval', '1s']);
  assert.equal(bare.code, 1);
  assert.equal(bare.stderr, `jobio top: cannot scrape exporter http://127.0.0.1:${port}/metrics: ECONNREFUSED\n`);
});

test("jobio top --exporter on an exporter without the mode's series: the empty table comes with a hint on stderr", async () => {
  await withExporters(1, async (_roots, urls) => {
    // Per job there are no jobstats entries yet (an idle server also has none); per client no export stats files.
    for (const [by, family, collector] of [
      ['job', 'jobio_lustre_jobstats_operations_total', 'lustre_jobstats'],
      ['client', 'jobio_lustre_export_operations_total', 'lustre_exports'],
    ] as const) {
      const maps = by === 'client' ? ['--nid-map', '/dev/null', '--job-map', '/dev/null'] : [];
      const result = await runJobio(['top', '--exporter', urls[0]!, '--once', '--interval', '1s', '--by', by, ...maps]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(withoutTitle(result.stdout).split('\n').length, 2, result.stdout);
      assert.equal(
        result.stderr,
        `jobio top: the --exporter scrape (${urls[0]!}) has no ${family} series at all: the table stays empty until it has some (the ${collector} collector on the Lustre servers' exporters)\n`,
      );
    }
  });
});

test('jobio top --exporter http://user:password@host: basic auth as a header (fetch refuses credentials in URLs); the password is never printed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-top-auth-'));
  const webConfig = join(dir, 'web.yml');
  // A password with characters that must be percent-encoded in a URL.
  writeFileSync(webConfig, `basic_auth_users:\n  top: '${bcrypt.hashSync('p@ss:w/rd', 4)}'\n`);
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', `--web.config.file=${webConfig}`]);
  try {
    const good = await runJobio(['top', '--exporter', `http://top:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${exporter.port}`, '--once', '--interval', '1s']);
    assert.equal(good.code, 0, good.stderr);
    assert.equal(withoutTitle(good.stdout), 'JOB  WR_MB  RD_MB  REQS  MDT_REQS  OWNER  TARGETS\n');
    const bad = await runJobio(['top', '--exporter', `http://top:wrong-secret@127.0.0.1:${exporter.port}`, '--once', '--interval', '1s']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, `jobio top: cannot scrape exporter http://top:***@127.0.0.1:${exporter.port}/metrics: HTTP 401\n`);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('jobio top without --once refreshes until SIGINT; no screen clearing when stdout is not a terminal', async () => {
  await withExporters(1, async (_roots, urls) => {
    const child = spawn(process.execPath, [jobioBin, 'top', '--exporter', urls[0]!, '--interval', '1s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    const deadline = Date.now() + 15_000;
    while ((stdout.match(/^JOB /gm) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
    assert.ok((stdout.match(/^jobio top — by job, 1s interval, /gm) ?? []).length >= 2, stdout);
    assert.ok(!stdout.includes('\x1b['), stdout);
  });
});
