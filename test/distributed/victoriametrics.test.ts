// The path a large site takes, end to end on 127.0.0.1: two Prometheus scrapers (agent mode,
// hashmod sharding) remote_write every exporter of a simulated site into VictoriaMetrics, vmalert
// evaluates jobio's recording and alert rules against it, and every question jobio asks (each
// dashboard query, the jobio data source's queries built by the plugin's own builders, its variable
// lookups, `jobio top --prometheus`, the recorded series, the firing alerts) gets the same answer from
// VictoriaMetrics as from one Prometheus scraping everything, within compare.ts's tolerance.
// Rule durations are divided by 20 (rate5m is a 15 s window, `for: 10m` is 30 s) so the alerts fire
// within the test; the exporters are scraped every second.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot, runJobio } from '../helpers/exporter.js';
import { startSite, fileSdTargets, type RunningSite, type SiteSpec } from './site.js';
import { startSharded, type ShardedSetup } from './sharded.js';
import { PromApi, VM_AUTH, type Series } from './services.js';
import { differences, close } from './compare.js';

/** Families whose value depends on when the exporter was last scraped by anyone (see the count below). */
const SCRAPER_RELATIVE = 'jobio_lustre_jobstats_rate_';

const RULE_SCALE = 20;
const RATE_WINDOW = 15; // seconds: $__rate_interval, the data source's windows
const RANGE = 30; // seconds: $__range, `jobio top --interval`, the data source's time range

// fs: one MDT, four OSTs on two servers. Job 1001 storms the MDT with metadata (6,000 ops/s); job 1003
// writes 50 MB/s to every OST and 8,000 Data-on-MDT writes/s (no storm: data); job 1002 reads
// 200 MB/s from one OST (unstriped); job 1004 reads 30 MB/s striped over two.
const MB = 1e6;
const spec: SiteSpec = {
  lustre: [
    {
      host: 'mds1',
      targets: [
        {
          name: 'fs-MDT0000',
          jobs: [
            { id: '1001:5000:n1', ops: { open: 4000, getattr: 2000 } },
            { id: '1003:5000:n1', ops: { open: 2 }, writeBytes: 8000 * 1048576 },
          ],
        },
      ],
    },
    {
      host: 'oss1',
      targets: [
        { name: 'fs-OST0000', jobs: [{ id: '1003:5000:n1', writeBytes: 50 * MB }] },
        {
          name: 'fs-OST0001',
          jobs: [
            { id: '1003:5000:n1', writeBytes: 50 * MB },
            { id: '1002:5001:n2', readBytes: 200 * MB },
          ],
        },
      ],
    },
    {
      host: 'oss2',
      targets: [
        {
          name: 'fs-OST0002',
          jobs: [
            { id: '1003:5000:n1', writeBytes: 50 * MB },
            { id: '1004:5001:n2', readBytes: 30 * MB, ops: { getattr: 50 } },
          ],
        },
        {
          name: 'fs-OST0003',
          jobs: [
            { id: '1003:5000:n1', writeBytes: 50 * MB },
            { id: '1004:5001:n2', readBytes: 30 * MB, ops: { getattr: 50 } },
          ],
        },
      ],
    },
  ],
  compute: [
    { host: 'n1', jobs: ['1001', '1003'], gpus: 2 },
    { host: 'n2', jobs: ['1002'], gpus: 1 },
  ],
};

let site: RunningSite | undefined;
let setup: ShardedSetup | undefined;
let prom: PromApi;
let vm: PromApi;
let at = 0; // the evaluation time of every comparison (Unix seconds)

interface VmalertAlert {
  state: string;
  labels: Record<string, string>;
}

async function vmalertFiring(): Promise<Series[]> {
  const res = await fetch(`${setup!.vmalert.url}/api/v1/alerts`).catch((err: unknown) => {
    throw new Error(`vmalert: ${String((err as Error).cause ?? err)}; its log:\n${setup!.vmalert.log().slice(-2000)}`);
  });
  const body = (await res.json()) as { data: { alerts: VmalertAlert[] | null } };
  return (body.data.alerts ?? []).filter((a) => a.state === 'firing').map((a) => ({ metric: a.labels, values: [[0, 1]] }));
}

async function promFiring(): Promise<Series[]> {
  const series = await prom.instant('ALERTS{alertstate="firing"}', Date.now() / 1000);
  return series.map((s) => {
    const { __name__: _name, alertstate: _state, ...labels } = s.metric;
    return { metric: labels, values: [[0, 1]] };
  });
}

const names = (alerts: Series[]): string[] => alerts.map((a) => `${a.metric.alertname}/${a.metric.jobid}`).sort();
const EXPECTED_FIRING = ['JobioMetadataStorm/1001', 'JobioUnstripedRead/1002'];

before(async () => {
  site = await startSite(spec);
  setup = await startSharded({ targetsYaml: fileSdTargets(site.hosts), interval: '1s', members: 2, ruleScale: RULE_SCALE, withSingle: true });
  prom = new PromApi(setup.single!.url);
  vm = new PromApi(setup.vm.url, VM_AUTH);
  // Wait until both engines fire the two alerts of the scenario (pending for 15 s and 30 s after
  // their 15 s rate windows fill), then let VictoriaMetrics ingest the last remote_write batches.
  const until = Date.now() + 90_000;
  for (;;) {
    const [p, v] = await Promise.all([promFiring(), vmalertFiring()]);
    if (EXPECTED_FIRING.every((a) => names(p).includes(a) && names(v).includes(a))) break;
    if (Date.now() > until) throw new Error(`alerts did not fire: Prometheus ${names(p).join(',')}, vmalert ${names(v).join(',')}\nvmalert log:\n${setup.vmalert.log().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  at = Math.floor(Date.now() / 1000) - 3;
  await new Promise((r) => setTimeout(r, 2000));
});

after(async () => {
  await setup?.stop();
  await site?.stop();
});

test('sharded scrape: each exporter is scraped by exactly one of the two scrapers, and VictoriaMetrics holds every series the single Prometheus holds', async () => {
  const perShard = await Promise.all(setup!.scrapers.map(async (s) => (await s.queryRaw('/api/v1/targets', {})) as { activeTargets: Array<{ scrapeUrl: string; health: string }> }));
  // Every exporter once over both scrapers (which one depends on the hash of its random port).
  const urls = perShard.map((t) => t.activeTargets.map((a) => a.scrapeUrl));
  assert.deepEqual([...urls.flat()].sort(), site!.hosts.map((h) => `http://${h.address}/metrics`).sort());
  // The rate density's buckets change when a density window ends (docs/metrics.md, rate density):
  // an engine that last scraped before the end and one that scraped after it hold different buckets
  // until the next scrape, so they are left out of this exact count.
  const count = `count by (role) ({__name__=~"jobio_.+", __name__!~"${SCRAPER_RELATIVE}.+"})`;
  assert.deepEqual(differences(count, await prom.instant(count, at), await vm.instant(count, at), { tol: { relative: 0, absolute: 0 } }), []);
  const [total] = await vm.instant('count({__name__=~"jobio_.+"})', at);
  assert.ok((total?.values[0]?.[1] ?? 0) > 300, `series in VictoriaMetrics: ${total?.values[0]?.[1]}`);
  assert.deepEqual(site!.sent().failed, 0);
});

test('vmalert fires the same alerts as Prometheus: the storm and the unstriped read, not the Data-on-MDT writes', async () => {
  const [p, v] = await Promise.all([promFiring(), vmalertFiring()]);
  assert.deepEqual(names(v), EXPECTED_FIRING);
  assert.deepEqual(differences('firing alerts', p, v, { tol: { relative: 0, absolute: 0 } }), []);
});

test('recorded series: vmalert writes into VictoriaMetrics what Prometheus records, for every recording rule', async () => {
  const expr = '{__name__=~"[a-z_]+:jobio_[a-z_]+:(rate5m|mean5m)"}';
  const [p, v] = await Promise.all([prom.instant(expr, at), vm.instant(expr, at)]);
  const recordingRules = new Set(p.map((s) => s.metric.__name__));
  // 8 rates of jobio-recording.yml, 2 rates and 3 latency means of jobio-latency.yml (the site's 2.14 job_stats have latencies).
  assert.equal(recordingRules.size, 13, [...recordingRules].join(', '));
  assert.deepEqual(differences('recording rules', p, v), []);
});

/** Every query of dashboards/*.json, with its datasource type and the variables replaced. */
interface DashboardQuery {
  readonly dashboard: string;
  readonly title: string;
  readonly type: string;
  readonly target: Record<string, unknown>;
}

function dashboardQueries(): DashboardQuery[] {
  const out: DashboardQuery[] = [];
  for (const file of readdirSync(join(repoRoot, 'dashboards')).filter((f) => f.endsWith('.json'))) {
    const dashboard = JSON.parse(readFileSync(join(repoRoot, 'dashboards', file), 'utf8')) as { panels?: unknown[] };
    const walk = (panels: unknown[]): void => {
      for (const panel of panels as Array<{ title?: string; panels?: unknown[]; targets?: Array<Record<string, unknown>>; datasource?: { type?: string } }>) {
        if (panel.panels) walk(panel.panels);
        for (const target of panel.targets ?? []) {
          const type = (target.datasource as { type?: string } | undefined)?.type ?? panel.datasource?.type ?? 'prometheus';
          out.push({ dashboard: file, title: panel.title ?? '', type, target });
        }
      }
    };
    walk(dashboard.panels ?? []);
  }
  return out;
}

// The variables as a user would set them: every target, one job and its user, one host.
function variables(n1: string): Array<Record<string, string>> {
  const common = { target: 'fs-.*', __rate_interval: `${RATE_WINDOW}s`, __range: `${RANGE}s`, __interval: '1s', instance: n1, client_node: '.*', account: '.*', fs: '.+', operation: 'open' };
  return [
    { ...common, jobid: '1001', user: '_system' }, // profiled job, Lustre job of alice
    { ...common, jobid: '1002', user: 'bob' },
    { ...common, jobid: '123', user: 'alice' }, // the cgroup fixture's job
  ];
}

function substitute(expr: string, vars: Record<string, string>): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\$(\w+)/g, (_, a: string | undefined, b: string | undefined) => {
    const name = (a ?? b)!;
    const value = vars[name];
    if (value === undefined) throw new Error(`dashboard variable $${name} has no test value: add it to variables() in this test`);
    return value;
  });
}

test('every dashboard query (dashboards/*.json, Prometheus panels) gives the same answer from VictoriaMetrics', async () => {
  const queries = dashboardQueries().filter((q) => q.type === 'prometheus' && !(typeof q.target.expr === 'string' && q.target.expr.includes(SCRAPER_RELATIVE)));
  assert.ok(queries.length >= 20, `dashboard queries: ${queries.length}`);
  const problems: string[] = [];
  let withData = 0;
  let evaluated = 0;
  const withoutData: string[] = [];
  const n1 = site!.hosts.find((h) => h.host === 'n1')!.address;
  for (const q of queries) {
    const raw = typeof q.target.expr === 'string' ? q.target.expr : '';
    assert.notEqual(raw, '', `${q.dashboard} "${q.title}" has an expr`);
    let some = false;
    for (const vars of variables(n1)) {
      const expr = substitute(raw, vars);
      // As Grafana runs it: an instant panel at the end of the range, a graph over the range.
      if (q.target.instant === true) {
        const [pi, vi] = await Promise.all([prom.instant(expr, at), vm.instant(expr, at)]);
        problems.push(...differences(`${q.dashboard} "${q.title}" instant ${expr}`, pi, vi));
        if (pi.length > 0) some = true;
      } else {
        const [pr, vr] = await Promise.all([prom.range(expr, at - 10, at, 1), vm.range(expr, at - 10, at, 1)]);
        problems.push(...differences(`${q.dashboard} "${q.title}" range ${expr}`, pr, vr, { edgePoints: 1 }));
        if (pr.length > 0) some = true;
      }
      evaluated += 1;
    }
    if (some) withData += 1;
    else withoutData.push(`${q.dashboard} "${q.title}"`);
  }
  assert.deepEqual(problems, []);
  // A comparison of empty answers proves nothing: nearly every panel must show data here. This site has
  // no Lustre client mounts (the lustre_client collector's own tests cover those panels' data), so the
  // panels that read only jobio_lustre_client_* series are not expected to.
  // Nor has it scheduler metadata (jobio_job_info: prolog spool or squeue), which the account panels join on,
  // nor a program the profiler could not see (its programs are dynamically linked, with no io_uring or
  // mapped-file I/O), so the blind-spot series (jobio_profiler_unseen_*, in the goldens of test/golden/profiler) are absent,
  // nor osd capacity, health_check, recovery_status or brw_stats files (lustre_health: its goldens in test/golden/lustre_health;
  // the server panels' data: test/lustre-health/dashboard-data.test.ts).
  const clientOnly = queries.filter((q) =>
    /jobio_lustre_client_|jobio_job_info|jobio_profiler_unseen_|jobio_lustre_target_(avail|files|size|recovery|brw)|jobio_lustre_health_/.test(typeof q.target.expr === 'string' ? q.target.expr : ''),
  ).length;
  assert.ok(
    withData >= queries.length - clientOnly - 2,
    `${withData} of ${queries.length} dashboard queries have data (${clientOnly} read series this site has not; ${evaluated} evaluations); without data: ${withoutData.join('; ')}`,
  );
});

interface LabelFilter {
  label: string;
  values: string[];
}
interface Builders {
  summaryExprs(groupBy: string, filters: LabelFilter[], rangeSeconds: number): { calls: string; seconds: string };
  topTalkersExpr(dimension: string, metric: string, limit: number, filters: LabelFilter[], opts: { instant: boolean; rangeSeconds: number; windowSeconds: number }): string;
  characterisationExprs(filters: LabelFilter[]): { read: string; write: string; operations: string };
  trendExpr(metric: string, filters: LabelFilter[], windowSeconds: number): string;
  variableMatch(kind: string, filters: LabelFilter[]): { label: string; match: string };
}

/** The plugin's own PromQL builders (grafana-plugin/src/datasource/promql/build.ts, through tsx). */
async function pluginBuilders(): Promise<Builders> {
  const mod = (await import(pathToFileURL(join(repoRoot, 'grafana-plugin/src/datasource/promql/build.ts')).href)) as { default?: Builders } & Builders;
  return mod.default ?? mod;
}

test('the jobio data source: every query type and variable lookup, built by the plugin, answers the same from VictoriaMetrics', async () => {
  const b = await pluginBuilders();
  const job = (id: string): LabelFilter[] => [{ label: 'jobid', values: [id] }];
  const instant: Array<[string, string]> = [];
  const range: Array<[string, string]> = [];
  for (const dimension of ['target', 'operation', 'user', 'jobid']) {
    for (const metric of ['bytes', 'read_bytes', 'write_bytes', 'operations']) {
      instant.push([`topTalkers ${dimension} ${metric}`, b.topTalkersExpr(dimension, metric, 10, [], { instant: true, rangeSeconds: RANGE, windowSeconds: RATE_WINDOW })]);
      range.push([`topTalkers range ${dimension} ${metric}`, b.topTalkersExpr(dimension, metric, 10, [], { instant: false, rangeSeconds: RANGE, windowSeconds: RATE_WINDOW })]);
    }
  }
  for (const groupBy of ['jobid', 'user', 'mount']) {
    const s = b.summaryExprs(groupBy, [], RANGE);
    instant.push([`summary ${groupBy} calls`, s.calls], [`summary ${groupBy} seconds`, s.seconds]);
  }
  const s1001 = b.summaryExprs('mount', job('1001'), RANGE);
  instant.push(['summary job 1001', s1001.calls]);
  // Characterisation of a writer and of a reader (a counter that never moved is not exported).
  const writer = b.characterisationExprs(job('1003'));
  const reader = b.characterisationExprs(job('1004'));
  range.push(
    ['characterisation 1003 write', writer.write],
    ['characterisation 1003 operations', writer.operations],
    ['characterisation 1004 read', reader.read],
    ['characterisation 1004 operations', reader.operations],
  );
  for (const metric of ['operations', 'bytes']) range.push([`trend ${metric}`, b.trendExpr(metric, [], RATE_WINDOW)]);

  const problems: string[] = [];
  const empty: string[] = [];
  for (const [what, expr] of instant) {
    const [p, v] = await Promise.all([prom.instant(expr, at), vm.instant(expr, at)]);
    problems.push(...differences(`${what}: ${expr}`, p, v));
    if (p.length === 0) empty.push(what);
  }
  for (const [what, expr] of range) {
    const [p, v] = await Promise.all([prom.range(expr, at - 10, at, 1), vm.range(expr, at - 10, at, 1)]);
    problems.push(...differences(`${what}: ${expr}`, p, v, { edgePoints: 1 }));
    if (p.length === 0) empty.push(what);
  }
  for (const kind of ['jobs', 'users', 'targets', 'mounts', 'operations']) {
    const { label, match } = b.variableMatch(kind, []);
    const [p, v] = await Promise.all([prom.labelValues(label, match, at - RANGE, at), vm.labelValues(label, match, at - RANGE, at)]);
    assert.deepEqual(v, p, `variable ${kind}: ${label} of ${match}`);
    assert.ok(p.length > 0, `variable ${kind} has values`);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(empty, [], 'every data source query has data');
});

interface TopRow {
  job: string;
  wr: number;
  rd: number;
  reqs: number;
  rest: string;
}

async function topRows(url: string): Promise<TopRow[]> {
  // lltop's columns (MDT_REQS would be one more figure compared with a tolerance); the title line left out.
  const r = await runJobio(['top', '--prometheus', url, '--once', '--interval', `${RANGE}s`, '--time', String(at), '--limit', '0', '--sort', 'job', '--columns', 'JOB,WR_MB,RD_MB,REQS,OWNER,TARGETS']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').slice(1);
  assert.match(lines[0] ?? '', /^JOB +WR_MB +RD_MB +REQS +OWNER +TARGETS$/);
  return lines.slice(1).map((line) => {
    const [job, wr, rd, reqs, ...rest] = line.trim().split(/\s+/);
    return { job: job!, wr: Number(wr), rd: Number(rd), reqs: Number(reqs), rest: rest.join(' ') };
  });
}

test('jobio top --prometheus: the same table from VictoriaMetrics as from Prometheus', async () => {
  // VictoriaMetrics requires its password: given in the URL, as a site does (never printed by jobio top).
  const withAuth = new URL(vm.url);
  withAuth.username = VM_AUTH.username;
  withAuth.password = VM_AUTH.password;
  const [p, v] = await Promise.all([topRows(prom.url), topRows(withAuth.href.replace(/\/$/, ''))]);
  assert.deepEqual(
    v.map((r) => `${r.job} ${r.rest}`),
    p.map((r) => `${r.job} ${r.rest}`),
  );
  assert.deepEqual(
    p.map((r) => r.job),
    ['1001', '1002', '1003', '1004'],
  );
  for (const [i, row] of p.entries()) {
    const other = v[i]!;
    for (const col of ['wr', 'rd', 'reqs'] as const) {
      // One decimal of MiB: allow the rounding step on top of the relative tolerance.
      assert.ok(close(row[col], other[col], { relative: 0.05, absolute: 0.1 }), `job ${row.job} ${col}: Prometheus ${row[col]}, VictoriaMetrics ${other[col]}`);
    }
  }
  // 200 MB/s for 30 s is about 5,722 MiB.
  const reader = p.find((r) => r.job === '1002')!;
  assert.ok(close(reader.rd, (200 * MB * RANGE) / 1048576, { relative: 0.05, absolute: 0 }), `job 1002 read ${reader.rd} MiB`);
});
