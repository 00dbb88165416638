#!/usr/bin/env node
// Captures real Prometheus API responses for the data-source tests.
//
//   node scripts/capture-prometheus.mjs [--duration 46] [--out src/__fixtures__/prometheus]
//   node scripts/capture-prometheus.mjs --exporter --procfs <dir> [--exporter-arg=--flag=value …]
//
// Starts Prometheus (Debian package, /usr/bin/prometheus) on 127.0.0.1 with a temporary data dir,
// scraping every second either the stand-in exporter (scripts/fake-exporter.mjs, the default) or the
// real one (`node bin/jobio.js exporter --path.procfs=<dir>` from the repository root, with --exporter).
// After --duration seconds it sends the requests the data source makes (PromQL built by the plugin's
// own src/datasource/promql/build.ts, bundled on the fly with esbuild) and saves each request with
// its response as one JSON file, plus manifest.json with the time range and step used.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { startFakeExporter } from './fake-exporter.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '46' },
    out: { type: 'string', default: join(root, 'src/__fixtures__/prometheus') },
    exporter: { type: 'boolean', default: false },
    procfs: { type: 'string' },
    'exporter-arg': { type: 'string', multiple: true, default: [] },
    prometheus: { type: 'string', default: '/usr/bin/prometheus' },
  },
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function waitFor(url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) {
        return;
      }
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${url}`);
    }
    await sleep(200);
  }
}

/** The plugin's PromQL builders, compiled from TypeScript for this script. */
async function loadBuilders(tmp) {
  const out = join(tmp, 'builders.mjs');
  await build({
    stdin: {
      contents: "export * from './promql/build'; export * from './promql/durations'; export * from './runners/context';",
      resolveDir: join(root, 'src/datasource'),
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
  });
  return import(pathToFileURL(out).href);
}

async function startTarget(port) {
  if (!args.exporter) {
    const fake = await startFakeExporter(port);
    return { source: 'scripts/fake-exporter.mjs', stop: fake.close };
  }
  if (!args.procfs) {
    throw new Error('--exporter needs --procfs <fixtures dir>');
  }
  const repo = resolve(root, '..');
  const child = spawn(process.execPath, [join(repo, 'bin/jobio.js'), 'exporter', `--web.listen-address=127.0.0.1:${port}`, `--path.procfs=${resolve(args.procfs)}`, ...args['exporter-arg']], {
    cwd: repo,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await waitFor(`http://127.0.0.1:${port}/metrics`, 20000);
  return { source: `bin/jobio.js exporter --path.procfs=${args.procfs}`, stop: async () => child.kill('SIGTERM') };
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'jobio-capture-'));
  const b = await loadBuilders(tmp);
  const targetPort = await freePort();
  const promPort = await freePort();
  const target = await startTarget(targetPort);
  writeFileSync(
    join(tmp, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: jobio\n    static_configs:\n      - targets: ['127.0.0.1:${targetPort}']\n`,
  );
  const prom = spawn(args.prometheus, [`--config.file=${join(tmp, 'prometheus.yml')}`, `--storage.tsdb.path=${join(tmp, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${promPort}`;
  try {
    await waitFor(`${base}/-/ready`, 30000);
    // The time range starts after the first scrape, so every series present from the start of the
    // scenario has a sample at the range's first step.
    const deadline = Date.now() + 30000;
    while ((await (await fetch(`${base}/api/v1/query?query=up`)).json()).data?.result?.length !== 1) {
      if (Date.now() > deadline) {
        throw new Error('Prometheus never scraped the target');
      }
      await sleep(200);
    }
    const readyAt = Date.now();
    console.log(`Prometheus ready on ${base}, scraping ${target.source} for ${args.duration} s`);
    await sleep(Number(args.duration) * 1000);
    const saved = await capture(base, b, readyAt);
    console.log(`saved ${saved} responses to ${args.out}`);
  } finally {
    prom.kill('SIGTERM');
    await target.stop();
    await sleep(500);
    rmSync(tmp, { recursive: true, force: true });
  }
  async function capture(baseUrl, builders, readyAt) {
    mkdirSync(args.out, { recursive: true });
    for (const f of readdirSync(args.out)) {
      if (f.endsWith('.json')) {
        unlinkSync(join(args.out, f));
      }
    }
    const scrape = 1;
    const step = 2;
    const toMs = Math.floor(Date.now() / 1000) * 1000;
    const fromMs = Math.ceil((readyAt + 3000) / 1000) * 1000;
    const rangeSeconds = (toMs - fromMs) / 1000;
    const ctx = { stepSeconds: step, scrapeSeconds: scrape };
    const window = builders.rateWindow(ctx);
    const rangeStart = builders.alignedStart(fromMs, step);
    const none = [];
    const job7001 = [{ label: 'jobid', values: ['7001'] }];
    const instant = (query) => ({ path: '/api/v1/query', params: { query, time: toMs / 1000 } });
    const range = (query, start = rangeStart, st = step) => ({ path: '/api/v1/query_range', params: { query, start: start / 1000, end: toMs / 1000, step: st } });
    const labels = (kind, filters) => {
      const { label, match } = builders.variableMatch(kind, filters);
      return { path: `/api/v1/label/${label}/values`, params: { 'match[]': match, start: Math.floor(fromMs / 1000), end: Math.ceil(toMs / 1000) } };
    };
    const summaryJob = builders.summaryExprs('jobid', none, rangeSeconds);
    const summaryMount = builders.summaryExprs('mount', job7001, rangeSeconds);
    const charAll = builders.characterisationExprs(none);
    const char7001 = builders.characterisationExprs(job7001);
    const trendLongPoints = 8;
    const injectQuote = builders.summaryExprs('jobid', [{ label: 'jobid', values: ['x"} or vector(1) or {a="'] }], rangeSeconds);
    const injectRegex = builders.summaryExprs('jobid', [{ label: 'jobid', values: ['7001', '.*'] }], rangeSeconds);
    const requests = {
      'buildinfo': { path: '/api/v1/status/buildinfo', params: {} },
      'health-count': instant('count({__name__=~"jobio_.+"})'),
      'summary-jobid-calls': instant(summaryJob.calls),
      'summary-jobid-seconds': instant(summaryJob.seconds),
      'summary-mount-7001-calls': instant(summaryMount.calls),
      'summary-mount-7001-seconds': instant(summaryMount.seconds),
      'prom-summary-calls-by-jobid-class': instant(`sum by (jobid, class) (increase(jobio_profiler_calls_total[${builders.formatDuration(rangeSeconds)}]))`),
      'prom-summary-seconds-by-jobid-class': instant(`sum by (jobid, class) (increase(jobio_profiler_io_seconds_total[${builders.formatDuration(rangeSeconds)}]))`),
      'top-users-bytes-instant': instant(builders.topTalkersExpr('user', 'bytes', 10, none, { instant: true, rangeSeconds, windowSeconds: window })),
      'top-targets-operations-instant': instant(builders.topTalkersExpr('target', 'operations', 5, none, { instant: true, rangeSeconds, windowSeconds: window })),
      'top-jobs-bytes-range': range(builders.topTalkersExpr('jobid', 'bytes', 5, none, { instant: false, rangeSeconds, windowSeconds: window })),
      'char-all-read': range(charAll.read),
      'char-all-write': range(charAll.write),
      'char-all-operations': range(charAll.operations),
      'char-7001-read': range(char7001.read),
      'char-7001-write': range(char7001.write),
      'char-7001-operations': range(char7001.operations),
      'trend-bytes-by-target': range(builders.trendExpr('bytes', none, window), builders.alignedStart(fromMs - trendLongPoints * step * 1000, step)),
      'heatmap-mdt-user-rates': range(`sum by (user, jobid) (rate(jobio_lustre_jobstats_operations_total{target="scratch-MDT0000"}[${builders.formatDuration(window)}]))`),
      'labels-jobs': labels('jobs', none),
      'labels-users': labels('users', none),
      'labels-targets': labels('targets', none),
      'injection-labels-users-quote': labels('users', [{ label: 'user', values: ['a"}) or vector(1) #'] }]),
      'injection-summary-jobid-quote-calls': instant(injectQuote.calls),
      'injection-summary-jobid-quote-seconds': instant(injectQuote.seconds),
      'injection-summary-jobid-regex-calls': instant(injectRegex.calls),
      'injection-summary-jobid-regex-seconds': instant(injectRegex.seconds),
      'error-bad-expr': range('sum(jobio_profiler_calls_total'),
    };
    let count = 0;
    for (const [name, req] of Object.entries(requests)) {
      const url = new URL(baseUrl + req.path);
      for (const [k, v] of Object.entries(req.params)) {
        url.searchParams.append(k, String(v));
      }
      const res = await fetch(url);
      const body = await res.json();
      writeFileSync(join(args.out, `${name}.json`), `${JSON.stringify({ path: req.path, params: req.params, status: res.status, body }, null, 1)}\n`);
      count++;
    }
    const version = (await (await fetch(`${baseUrl}/api/v1/status/buildinfo`)).json()).data?.version;
    writeFileSync(
      join(args.out, 'manifest.json'),
      `${JSON.stringify({ source: target.source, prometheus: version, capturedAt: new Date(toMs).toISOString(), fromMs, toMs, stepSeconds: step, scrapeSeconds: scrape, rateWindowSeconds: window }, null, 1)}\n`,
    );
    return count;
  }
}

await main();
