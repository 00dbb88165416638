#!/usr/bin/env node
// Captures real Prometheus API responses for the data-source tests, from a real Prometheus scraping
// the real jobio exporter.
//
//   npm run build                                   # at the repository root, first (this builds nothing)
//   node grafana-plugin/scripts/capture-prometheus.mjs [--duration 90] [--out src/__fixtures__/prometheus-real]
//
// 1. Starts the built exporter (`node bin/jobio.js exporter`) on 127.0.0.1 (ephemeral port) with
//    only the lustre_jobstats and profiler collectors, a temporary procfs root holding job_stats files
//    of one MDT and four OSTs, a temporary rootfs whose /etc/passwd names the users, and the profiler
//    socket in the temporary folder.
// 2. Runs the workload of scripts/capture-scenario.mjs for --duration seconds: the job_stats files
//    grow every second; dd, cp and python3 run again and again under libjobio.so as real users with
//    SLURM_JOB_ID set.
// 3. Debian's Prometheus (/usr/bin/prometheus) scrapes the exporter every second (temporary data dir).
// 4. Sends the requests the data source makes (PromQL built by the plugin's own
//    src/datasource/promql/build.ts, bundled on the fly with esbuild) and the panel's standard queries,
//    and saves each request with its response as one JSON file, plus manifest.json (time range, step,
//    versions, scenario).
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { JobStatsScenario, loopJob, passwd, prepareJobs, readTemplate } from './capture-scenario.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(root, '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '90' },
    out: { type: 'string', default: join(root, 'src/__fixtures__/prometheus-real') },
    // Accepted for compatibility: the real exporter is the only mode.
    exporter: { type: 'boolean', default: true },
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

/** The built repository: bin/jobio.js with dist/, and the profiler library. */
function requireBuiltRepo() {
  const bin = join(repo, 'bin/jobio.js');
  if (!existsSync(join(repo, 'dist/cli')) || !existsSync(bin)) {
    throw new Error(`the repository is not built: run "npm run build" in ${repo} first`);
  }
  const lib = execFileSync(process.execPath, [bin, 'preload-path'], { encoding: 'utf8' }).trim();
  if (!existsSync(lib)) {
    throw new Error(`the profiler library ${lib} is missing: run "npm run build" in ${repo} first`);
  }
  const version = execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' }).trim();
  return { bin, lib, version };
}

async function startExporter(bin, port, tmp) {
  const flags = [
    `--web.listen-address=127.0.0.1:${port}`,
    '--collector.disable-defaults',
    '--collector.lustre_jobstats',
    '--collector.profiler',
    // Only the Lustre files come from the temporary tree: the profiler checks its senders in the real /proc.
    `--path.lustre=${tmp}`,
    `--path.rootfs=${join(tmp, 'rootfs')}`,
    `--collector.profiler.socket=${join(tmp, 'profiler.sock')}`,
  ];
  const child = spawn(process.execPath, [bin, 'exporter', ...flags], { cwd: repo, stdio: ['ignore', 'inherit', 'inherit'] });
  await waitFor(`http://127.0.0.1:${port}/metrics`, 20000);
  return { command: `node bin/jobio.js exporter ${flags.map((f) => f.replace(tmp, '$TMP')).join(' ')}`, stop: async () => child.kill('SIGTERM') };
}

async function main() {
  const built = requireBuiltRepo();
  const duration = Number(args.duration);
  const tmp = mkdtempSync(join(tmpdir(), 'jobio-capture-'));
  // The profiled programs run as the scenario's users: they need to reach the socket.
  chmodSync(tmp, 0o755);
  const shm = mkdtempSync('/dev/shm/jobio-capture-');
  chmodSync(shm, 0o755);
  const b = await loadBuilders(tmp);
  mkdirSync(join(tmp, 'rootfs/etc'), { recursive: true });
  mkdirSync(join(tmp, 'sys'), { recursive: true });
  writeFileSync(join(tmp, 'rootfs/etc/passwd'), passwd(join(repo, 'test/fixtures/lustre/rootfs/etc/passwd')));
  const templates = {
    ost: readTemplate(join(repo, 'test/fixtures/lustre/lctl/lctl_get_param.obdfilter.job_stats.txt')),
    mdt: readTemplate(join(repo, 'test/fixtures/lustre/lctl/lctl_get_param.mdt.job_stats.txt')),
  };
  const scenario = new JobStatsScenario(join(tmp, 'proc'), duration, templates);
  scenario.step(0, 0);
  const jobs = prepareJobs(join(tmp, 'work'), shm);
  const targetPort = await freePort();
  const promPort = await freePort();
  const target = await startExporter(built.bin, targetPort, tmp);
  writeFileSync(
    join(tmp, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: jobio\n    static_configs:\n      - targets: ['127.0.0.1:${targetPort}']\n`,
  );
  const prom = spawn(args.prometheus, [`--config.file=${join(tmp, 'prometheus.yml')}`, `--storage.tsdb.path=${join(tmp, 'data')}`, `--web.listen-address=127.0.0.1:${promPort}`, '--log.level=warn'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${promPort}`;
  // The workload: job_stats rewritten every second, the profiled programs looping.
  const t0 = Date.now();
  let last = t0;
  const ticker = setInterval(() => {
    const now = Date.now();
    scenario.step((now - t0) / 1000, (now - last) / 1000);
    last = now;
  }, 1000);
  const loops = jobs.map((job) => loopJob(job, { lib: built.lib, socket: join(tmp, 'profiler.sock'), gapMs: 1000, log: (m) => console.error(m) }));
  let runs = [];
  try {
    await waitFor(`${base}/-/ready`, 30000);
    // The time range starts after the first scrape, so every series present from the start of the
    // scenario has a sample at the range's first step.
    const deadline = Date.now() + 30000;
    while ((await (await fetch(`${base}/api/v1/query?query=up`)).json()).data?.result?.length !== 1) {
      if (Date.now() > deadline) {
        throw new Error('Prometheus never scraped the exporter');
      }
      await sleep(200);
    }
    const readyAt = Date.now();
    console.log(`Prometheus ready on ${base}, scraping ${target.command} for ${duration} s`);
    await sleep(Math.max(0, t0 + duration * 1000 - Date.now()));
    runs = await Promise.all(loops.map((l) => l.stop()));
    clearInterval(ticker);
    // Two more scrapes, so the last frames of the programs are in.
    await sleep(2500);
    const saved = await capture(base, b, readyAt);
    console.log(`saved ${saved} responses to ${args.out}`);
    console.log(jobs.map((j, i) => `${j.jobid} ${j.user}: ${runs[i].runs} runs, ${runs[i].failures} failed`).join('\n'));
  } finally {
    clearInterval(ticker);
    await Promise.all(loops.map((l) => l.stop()));
    prom.kill('SIGTERM');
    await target.stop();
    await sleep(500);
    rmSync(tmp, { recursive: true, force: true });
    rmSync(shm, { recursive: true, force: true });
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
    const char7003 = builders.characterisationExprs([{ label: 'jobid', values: ['7003'] }]);
    const mdt = [{ label: 'target', values: ['scratch-MDT0000'] }];
    const trendLongPoints = 8;
    const injectQuote = builders.summaryExprs('jobid', [{ label: 'jobid', values: ['x"} or vector(1) or {a="'] }], rangeSeconds);
    const injectRegex = builders.summaryExprs('jobid', [{ label: 'jobid', values: ['7001', '.*'] }], rangeSeconds);
    // Every query of one summary: calls, seconds, bytes, reason calls and seconds.
    const summaryRequests = (prefix, exprs) => Object.fromEntries(Object.entries(exprs).map(([k, q]) => [`${prefix}-${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, instant(q)]));
    const requests = {
      buildinfo: { path: '/api/v1/status/buildinfo', params: {} },
      'health-count': instant('count({__name__=~"jobio_.+"})'),
      ...summaryRequests('summary-jobid', summaryJob),
      ...summaryRequests('summary-mount-7001', summaryMount),
      'prom-summary-calls-by-jobid-class': instant(`sum by (jobid, class) (increase(jobio_profiler_calls_total[${builders.formatDuration(rangeSeconds)}]))`),
      'prom-summary-seconds-by-jobid-class': instant(`sum by (jobid, class) (increase(jobio_profiler_io_seconds_total[${builders.formatDuration(rangeSeconds)}]))`),
      // The job dashboard's standard-Prometheus summary (user column, volume).
      'prom-summary-calls-by-jobid-user-class': instant(`sum by (jobid, user, class) (increase(jobio_profiler_calls_total[${builders.formatDuration(rangeSeconds)}]))`),
      'prom-summary-seconds-by-jobid-user-class': instant(`sum by (jobid, user, class) (increase(jobio_profiler_io_seconds_total[${builders.formatDuration(rangeSeconds)}]))`),
      'prom-summary-bytes-by-jobid-user': instant(summaryJob.bytes),
      'top-users-bytes-instant': instant(builders.topTalkersExpr('user', 'bytes', 10, none, { instant: true, rangeSeconds, windowSeconds: window })),
      'top-targets-operations-instant': instant(builders.topTalkersExpr('target', 'operations', 5, none, { instant: true, rangeSeconds, windowSeconds: window })),
      'top-jobs-bytes-range': range(builders.topTalkersExpr('jobid', 'bytes', 5, none, { instant: false, rangeSeconds, windowSeconds: window })),
      'char-all-read': range(charAll.read),
      'char-all-write': range(charAll.write),
      'char-all-operations': range(charAll.operations),
      'char-7001-read': range(char7001.read),
      'char-7001-write': range(char7001.write),
      'char-7001-operations': range(char7001.operations),
      'char-7003-read': range(char7003.read),
      'char-7003-write': range(char7003.write),
      'char-7003-operations': range(char7003.operations),
      'top-jobs-operations-mdt-instant': instant(builders.topTalkersExpr('jobid', 'operations', 10, mdt, { instant: true, rangeSeconds, windowSeconds: window })),
      'top-users-operations-mdt-range': range(builders.topTalkersExpr('user', 'operations', 5, mdt, { instant: false, rangeSeconds, windowSeconds: window })),
      'trend-bytes-by-target': range(builders.trendExpr('bytes', none, window), builders.alignedStart(fromMs - trendLongPoints * step * 1000, step)),
      'heatmap-mdt-user-rates': range(`sum by (user, jobid) (rate(jobio_lustre_jobstats_operations_total{target="scratch-MDT0000"}[${builders.formatDuration(window)}]))`),
      'labels-jobs': labels('jobs', none),
      'labels-users': labels('users', none),
      'labels-targets': labels('targets', none),
      'labels-mounts': labels('mounts', job7001),
      'injection-labels-users-quote': labels('users', [{ label: 'user', values: ['a"}) or vector(1) #'] }]),
      ...summaryRequests('injection-summary-jobid-quote', injectQuote),
      ...summaryRequests('injection-summary-jobid-regex', injectRegex),
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
    const manifest = {
      source: 'real jobio exporter (lustre_jobstats + profiler) scraped by Debian Prometheus, workload of scripts/capture-scenario.mjs',
      exporter: target.command,
      jobio: built.version,
      prometheus: version,
      node: process.version,
      capturedAt: new Date(toMs).toISOString(),
      durationSeconds: duration,
      fromMs,
      toMs,
      stepSeconds: step,
      scrapeSeconds: scrape,
      rateWindowSeconds: window,
      profilerRuns: Object.fromEntries(jobs.map((j, i) => [j.jobid, { user: j.user, argv: j.argv.slice(0, 3).join(' ').slice(0, 120), runs: runs[i]?.runs, failures: runs[i]?.failures }])),
    };
    writeFileSync(join(args.out, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
    return count;
  }
}

await main();
