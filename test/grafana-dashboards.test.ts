// What an admin meets when the jobio dashboards land in a Grafana that already has its own: the
// provisioned data sources are not the default and have jobio's own uids, and the dashboards pick
// them by uid; every panel says what it shows; titles never name a multi-value variable (it reads
// "All"); every job table links to the job dashboard; job ids sort as numbers; the job dashboard has
// a header from jobio_job_info and annotations for alerts and the job's run (their PromQL parses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const repo = fileURLToPath(new URL('../', import.meta.url));

interface Target {
  refId: string;
  expr?: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  type: string;
  title: string;
  description?: string;
  datasource?: { type: string; uid: string };
  targets?: Target[];
  options?: Record<string, any>;
  fieldConfig?: { defaults?: Record<string, any>; overrides?: Array<{ matcher: { id: string; options: string }; properties: Array<{ id: string; value: any }> }> };
  gridPos: { h: number; w: number; x: number; y: number };
  /** A row repeated once per value of this variable. */
  repeat?: string;
}
interface Variable {
  name: string;
  type: string;
  multi?: boolean;
  includeAll?: boolean;
  sort?: number;
  definition?: string;
  current?: { value?: string };
}
interface Dashboard {
  uid: string;
  panels: Panel[];
  templating: { list: Variable[] };
  annotations: { list: Array<{ name: string; expr?: string; datasource?: { type: string; uid: string }; enable?: boolean }> };
}

const dashboards = (): Array<[string, Dashboard]> =>
  readdirSync(join(repo, 'dashboards'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, JSON.parse(readFileSync(join(repo, 'dashboards', f), 'utf8')) as Dashboard]);

test('provisioning coexists with a site’s Grafana: no default data source, jobio’s own uids, the dashboards pick them by uid', () => {
  const ds = parse(readFileSync(join(repo, 'provisioning', 'grafana', 'datasources', 'jobio.yaml'), 'utf8')) as {
    datasources: Array<{ type: string; uid: string; isDefault?: boolean; name: string }>;
  };
  assert.deepEqual(
    ds.datasources.map((d) => [d.type, d.uid, d.isDefault]),
    [
      ['prometheus', 'jobio-prometheus', false],
      ['jobio-jobio-datasource', 'jobio', false],
    ],
  );
  // The VictoriaMetrics variant is used instead of it: the same uids, no default either.
  const vm = parse(readFileSync(join(repo, 'provisioning', 'victoriametrics', 'grafana-datasources.yaml'), 'utf8')) as typeof ds;
  assert.deepEqual(
    vm.datasources.map((d) => [d.type, d.uid, d.isDefault]),
    ds.datasources.map((d) => [d.type, d.uid, d.isDefault]),
  );
  const byType = new Map(ds.datasources.map((d) => [d.type, d]));
  for (const [file, d] of dashboards()) {
    for (const v of d.templating.list.filter((x) => x.type === 'datasource')) {
      const provisioned = byType.get((v as Variable & { query: string }).query);
      assert.equal(v.current?.value, provisioned?.uid, `${file}: $${v.name} defaults to the provisioned ${provisioned?.name}, not the site's default`);
    }
    // Every query names its data source through the variables, never a fixed uid.
    for (const p of d.panels) for (const t of [p, ...(p.targets ?? [])]) assert.match(t.datasource?.uid ?? '', /^\$\{(prometheus|jobio)\}$/, `${file}: "${p.title}"`);
    for (const a of d.annotations.list) assert.equal(a.datasource?.uid, '${prometheus}', `${file}: annotation ${a.name}`);
  }
});

test('dashboards: every panel described; no title names a multi-value variable; job ids sort as numbers', () => {
  let panels = 0;
  for (const [file, d] of dashboards()) {
    const multi = d.templating.list.filter((v) => v.multi || v.includeAll).map((v) => v.name);
    for (const p of d.panels) {
      panels += 1;
      assert.ok((p.description ?? '').length >= 40, `${file}: "${p.title}" has a description`);
      // A row repeated over a variable is drawn once per value: its title shows that one value.
      for (const name of multi) if (p.repeat !== name) assert.ok(!new RegExp(`\\$${name}\\b`).test(p.title), `${file}: "${p.title}" names $${name}, which reads "All"`);
    }
    for (const v of d.templating.list.filter((x) => /, jobid\)$/.test(x.definition ?? ''))) assert.ok(v.sort === 3 || v.sort === 4, `${file}: $${v.name} sorts numerically (sort ${v.sort})`);
  }
  assert.ok(panels >= 34, `${panels} panels`);
});

test('dashboards: every table of jobs links each job to the job dashboard', () => {
  let tables = 0;
  for (const [file, d] of dashboards()) {
    for (const p of d.panels) {
      const exprs = (p.targets ?? []).map((t) => t.expr ?? '').join('\n');
      if (p.type === 'table' && /by \(jobid|jobio_gpu_job_info/.test(exprs)) {
        tables += 1;
        const link = p.fieldConfig?.overrides?.find((o) => o.matcher.options === 'jobid')?.properties.find((x) => x.id === 'links')?.value?.[0]?.url;
        assert.match(link ?? '', /^\/d\/jobio-job\/jobio-job\?var-jobid=\$\{__value\.raw\}&var-user=\$\{__data\.fields\.user\}&\$\{__url_time_range\}$/, `${file}: "${p.title}"`);
      }
      if (p.type === 'jobio-jobio-panel' && p.options?.view === 'summary' && p.options.summary.groupBy === 'jobid') assert.equal(p.options.summary.jobDashboard, 'jobio-job', `${file}: "${p.title}"`);
      if (p.type === 'jobio-jobio-panel' && p.options?.view === 'heatmap' && /jobid/.test(p.options.heatmap.listLabels))
        assert.ok(p.options.heatmap.jobDashboard || p.options.heatmap.drillLabel === 'instance', `${file}: "${p.title}"`);
    }
  }
  assert.ok(tables >= 3, `${tables} job tables`);
});

test('job dashboard: a header from jobio_job_info, annotations for alerts and the job’s run; the cluster shows alerts; all their PromQL parses', () => {
  const all = new Map(dashboards());
  const job = all.get('job.json') as Dashboard;
  const top = job.panels.filter((p) => p.gridPos.y === 0);
  assert.ok(
    top.some((p) => (p.targets ?? []).some((t) => /jobio_job_info\{jobid="\$jobid"\}/.test(t.expr ?? '') && /account, partition, job_name, work_dir/.test(t.expr ?? ''))),
    'the header row reads the job’s metadata',
  );
  const annotations = Object.fromEntries(job.annotations.list.map((a) => [a.name, a.expr ?? '']));
  assert.match(annotations['jobio alerts firing'] ?? '', /^ALERTS\{alertstate="firing", alertname=~"Jobio\.\*", jobid="\$jobid"\}$/);
  assert.match(annotations['Job running (scheduler)'] ?? '', /jobio_job_info\{jobid="\$jobid"\}/);
  const cluster = all.get('cluster-filesystem.json') as Dashboard;
  assert.ok(cluster.annotations.list.some((a) => a.expr?.startsWith('ALERTS{')));
  const exprs = [...all.values()].flatMap((d) => [...d.annotations.list.map((a) => a.expr ?? ''), ...d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''))]).filter((e) => e !== '');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-dash-'));
  try {
    const filled = exprs.map((e) => e.replace(/\$__(range|rate_interval|interval)/g, '5m').replace(/\$[a-z_]+/g, 'x'));
    writeFileSync(join(dir, 'q.yml'), ['groups:', '  - name: q', '    rules:', ...filled.flatMap((e, i) => [`      - record: q_${i}`, `        expr: ${JSON.stringify(e)}`])].join('\n') + '\n');
    const r = spawnSync('promtool', ['check', 'rules', join(dir, 'q.yml')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('dashboards/*.json are exactly what grafana-plugin/scripts/gen-dashboards.mjs writes (no hand edit drifts from the generator)', () => {
  const out = mkdtempSync(join(tmpdir(), 'jobio-gen-dashboards-'));
  try {
    const r = spawnSync(process.execPath, [join(repo, 'grafana-plugin/scripts/gen-dashboards.mjs'), '--out', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const generated = readdirSync(out).sort();
    assert.deepEqual(
      generated,
      readdirSync(join(repo, 'dashboards'))
        .filter((f) => f.endsWith('.json'))
        .sort(),
    );
    for (const file of generated) {
      assert.equal(readFileSync(join(out, file), 'utf8'), readFileSync(join(repo, 'dashboards', file), 'utf8'), `${file}: run the generator after changing it, and change it instead of the JSON`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
