// The Grafana plugin (grafana-plugin/, its own npm package) as CI builds and tests it: typecheck,
// webpack build, the offline plugin.json checker, jest, and the Chromium test of the built modules.
// Needs `npm ci --prefix grafana-plugin` and Debian's chromium (`apt-get install -y chromium`); fails,
// with that instruction, when either is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pluginDir = fileURLToPath(new URL('../grafana-plugin/', import.meta.url));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function requireInstall(): void {
  assert.ok(existsSync(join(pluginDir, 'node_modules', '@grafana', 'ui')), 'grafana-plugin/node_modules is missing: run "npm ci --prefix grafana-plugin" (CI must install the plugin package)');
}

function run(args: string[], timeoutMs: number, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: pluginDir, env: { ...process.env, NODE_ENV: 'test', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function step(args: string[], timeoutMs: number, env?: Record<string, string>): Promise<string> {
  requireInstall();
  const r = await run(args, timeoutMs, env);
  assert.equal(r.code, 0, `grafana-plugin: node ${args.join(' ')} exited ${r.code}\n${r.output}`);
  return r.output;
}

const bin = (pkg: string, file: string) => join(pluginDir, 'node_modules', pkg, file);

test('grafana-plugin: typecheck (tsc --noEmit, strict)', async () => {
  await step([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], 180_000);
});

// plugin.json accepts Grafana 11.0: the shipped code is type-checked against 11.0.0's @grafana packages
// (npm aliases grafana11-*), and the check is shown to catch an API 11.0 lacks.
test('grafana-plugin: the plugin type-checks against Grafana 11.0.0 packages, and the check rejects a newer API', async () => {
  await step([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.grafana11.json', '--noEmit'], 180_000);
  for (const f of ['src/plugin.json', 'src/panel/plugin.json', 'src/datasource/plugin.json']) {
    assert.equal(JSON.parse(readFileSync(join(pluginDir, f), 'utf8')).dependencies.grafanaDependency, '>=11.0.0', `${f}: the tested range`);
  }
  const probeDir = mkdtempSync(join(pluginDir, '.compat-probe-'));
  try {
    // Combobox arrived in @grafana/ui after 11.0.
    writeFileSync(join(probeDir, 'probe.ts'), "import { Combobox } from '@grafana/ui';\nexport const probe = Combobox;\n");
    const base = { extends: '../tsconfig.grafana11.json', include: ['probe.ts'] };
    writeFileSync(join(probeDir, 'tsconfig.json'), JSON.stringify(base));
    const old = await run([bin('typescript', 'bin/tsc'), '-p', join(probeDir, 'tsconfig.json'), '--noEmit'], 180_000);
    assert.notEqual(old.code, 0, 'Combobox must not type-check against 11.0');
    assert.match(old.output, /has no exported member named 'Combobox'|has no exported member 'Combobox'/);
    writeFileSync(join(probeDir, 'tsconfig.json'), JSON.stringify({ ...base, extends: '../tsconfig.json', compilerOptions: { types: [] } }));
    const current = await run([bin('typescript', 'bin/tsc'), '-p', join(probeDir, 'tsconfig.json'), '--noEmit'], 180_000);
    assert.equal(current.code, 0, `the same probe type-checks against the build's packages\n${current.output}`);
  } finally {
    rmSync(probeDir, { recursive: true, force: true });
  }
});

test('grafana-plugin: webpack build produces AMD modules in dist/', async () => {
  await step(['scripts/build.mjs'], 240_000);
  // What Grafana 11.0 already shares with plugins; react/jsx-runtime is not asked for (classic JSX).
  const shared = new Set(['react', 'react-dom', '@grafana/data', '@grafana/ui', '@grafana/runtime', '@emotion/css', 'rxjs']);
  for (const m of ['module.js', 'panel/module.js', 'datasource/module.js']) {
    const text = readFileSync(join(pluginDir, 'dist', m), 'utf8');
    const deps = /^define\((\[[^\]]*\])/.exec(text);
    assert.ok(deps, `dist/${m} is AMD`);
    for (const dep of JSON.parse(deps[1] as string) as string[]) {
      assert.ok(shared.has(dep), `dist/${m} asks the host for ${dep}, which Grafana 11.0 does not share`);
    }
  }
});

test('grafana-plugin: plugin.json checker passes on dist/', async () => {
  const out = await step(['scripts/check-plugin.mjs'], 60_000);
  assert.match(out, /\d+ passed, 0 failed/);
});

test('grafana-plugin: plugin.json checker rejects a broken dist/', async () => {
  requireInstall();
  const broken = mkdtempSync(join(tmpdir(), 'jobio-dist-'));
  try {
    cpSync(join(pluginDir, 'dist'), broken, { recursive: true });
    const panelJson = join(broken, 'panel', 'plugin.json');
    const json = JSON.parse(readFileSync(panelJson, 'utf8'));
    json.info.version = '%VERSION%';
    json.dependencies.grafanaDependency = 'twelve';
    writeFileSync(panelJson, JSON.stringify(json));
    rmSync(join(broken, 'datasource', 'img'), { recursive: true });
    const r = await run(['scripts/check-plugin.mjs', broken], 60_000);
    assert.notEqual(r.code, 0, r.output);
    assert.match(r.output, /not ok - panel\/plugin.json: %VERSION% and %TODAY% replaced/);
    assert.match(r.output, /not ok - panel\/plugin.json: grafanaDependency "twelve" is a semver range/);
    assert.match(r.output, /not ok - datasource\/plugin.json: logo small/);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
});

/** A zip archive as Python's zipfile (an implementation independent of ours) reads it: entries in order, Unix modes, CRC check; extracted into dest. */
function readZipWithPython(file: string, dest: string): { bad: string | null; entries: Array<{ name: string; mode: number }> } {
  const script = [
    'import json, sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1])',
    'bad = z.testzip()',
    'entries = [{"name": i.filename, "mode": i.external_attr >> 16} for i in z.infolist()]',
    'z.extractall(sys.argv[2])',
    'print(json.dumps({"bad": bad, "entries": entries}))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, file, dest], { encoding: 'utf8' });
  assert.equal(r.error, undefined, 'python3 is needed to read the archive independently (apt-get install -y python3; CI installs it)');
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { bad: string | null; entries: Array<{ name: string; mode: number }> };
}

/** Files under dir, relative, sorted ("/" separated). */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

// `npm run package`: the archive Grafana installs. Read back by Python's zipfile, not by our writer's code.
test('npm run package: <id>-<version>.zip holds one folder named after the app id, with what Grafana and its plugin validator expect', async () => {
  const rootPkg = JSON.parse(readFileSync(join(pluginDir, '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.equal(rootPkg.scripts.package, 'node grafana-plugin/scripts/package.mjs', 'the root script runs the packager');
  const version = (JSON.parse(readFileSync(join(pluginDir, 'package.json'), 'utf8')) as { version: string }).version;
  const work = mkdtempSync(join(tmpdir(), 'jobio-package-'));
  try {
    const out = await step(['scripts/package.mjs', '--out', join(work, 'release')], 300_000);
    const file = join(work, 'release', `jobio-jobio-app-${version}.zip`);
    assert.match(out, new RegExp(`wrote ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `));
    assert.deepEqual(readdirSync(join(work, 'release')), [`jobio-jobio-app-${version}.zip`], 'one archive, named <plugin id>-<version>.zip');

    const plugins = join(work, 'plugins');
    const { bad, entries } = readZipWithPython(file, plugins);
    assert.equal(bad, null, 'every entry passes its CRC check');
    // Grafana's installer names the plugin folder after the first entry; the validator wants exactly one top folder, named after the id.
    assert.deepEqual(entries[0], { name: 'jobio-jobio-app/', mode: 0o40755 });
    for (const e of entries) {
      assert.ok(e.name.startsWith('jobio-jobio-app/') && !e.name.includes('..'), `${e.name}: inside the one top folder`);
      assert.equal(e.mode, e.name.endsWith('/') ? 0o40755 : 0o100644, `${e.name}: a plain folder or file, readable by Grafana`);
    }
    assert.deepEqual(readdirSync(plugins), ['jobio-jobio-app']);
    const app = join(plugins, 'jobio-jobio-app');
    const shipped = filesUnder(app);
    for (const f of ['plugin.json', 'module.js', 'README.md', 'CHANGELOG.md', 'LICENSE', 'img/logo.svg', 'panel/plugin.json', 'panel/module.js', 'datasource/plugin.json', 'datasource/module.js']) {
      assert.ok(shipped.includes(f), `the archive ships ${f}`);
    }
    // Exactly the freshly built dist/, byte for byte.
    assert.deepEqual(shipped, filesUnder(join(pluginDir, 'dist')));
    for (const f of shipped) {
      assert.ok(readFileSync(join(app, f)).equals(readFileSync(join(pluginDir, 'dist', f))), `${f}: as built`);
    }
    const plugin = JSON.parse(readFileSync(join(app, 'plugin.json'), 'utf8')) as { id: string; type: string; info: { version: string } };
    assert.deepEqual([plugin.id, plugin.type, plugin.info.version], ['jobio-jobio-app', 'app', version]);
    for (const [dir, type] of [
      ['panel', 'panel'],
      ['datasource', 'datasource'],
    ] as const) {
      const nested = JSON.parse(readFileSync(join(app, dir, 'plugin.json'), 'utf8')) as { id: string; type: string; info: { version: string } };
      assert.deepEqual([nested.id, nested.type, nested.info.version], [`jobio-jobio-${type}`, type, version]);
    }
    const license = readFileSync(join(app, 'LICENSE'), 'utf8');
    assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
    assert.match(license, /END OF TERMS AND CONDITIONS/, 'the whole license text, as the validator wants to recognise it');
    // The installed folder passes the same offline checks as dist/.
    const checked = await step(['scripts/check-plugin.mjs', app], 60_000);
    assert.match(checked, /\d+ passed, 0 failed/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test('grafana-plugin: jest (components, pure functions, data source on captured Prometheus responses)', async () => {
  const out = await step([bin('jest', 'bin/jest.js'), '--runInBand', '--ci'], 480_000);
  assert.match(out, /Tests:\s+\d+ passed, \d+ total/);
});

test('grafana-plugin: headless Chromium renders the built panel (both views, dark and light, the heatmap at 10,000 series and at 1920 px with whole job ids, status letters and colour-blind check), drills down, and draws the cluster dashboard population tables', async () => {
  requireInstall();
  assert.ok(existsSync(chromium), `Chromium not found at ${chromium}: install it with "apt-get install -y chromium" (CI installs it)`);
  // Seven page loads of a 10 MB bundle: over 300 s has been seen on a loaded 2-core machine (the runner allows 600 s).
  const out = await step(['test-browser/run.mjs'], 540_000);
  // 10 checks: 4 per theme (summary, heatmap, heatmap at 10,000 series, population tables), the 1920 px heatmap, the colour model
  assert.match(out, /10 passed, 0 failed/);
});

// Dashboards and provisioning need no install: plain files checked against the metric contract.
const repo = fileURLToPath(new URL('../', import.meta.url));

interface Panel {
  type: string;
  title: string;
  targets?: Array<Record<string, unknown>>;
  options?: Record<string, any>;
  gridPos?: { h: number; w: number; x: number; y: number };
}

/**
 * Metric names of the contract: the catalogue docs/metrics.md, itself checked against the real exporter's output by its own test.
 * A histogram is queried through its `_bucket` and `_count` series.
 */
function contractMetrics(): Set<string> {
  const catalogue = readFileSync(join(repo, 'docs', 'metrics.md'), 'utf8');
  const names = [...catalogue.matchAll(/^\| `(jobio_[a-z_]+)` \| ([a-z]+) \|/gm)].flatMap((m) => (m[2] === 'histogram' ? [m[1], `${m[1]}_bucket`, `${m[1]}_count`] : [m[1]]) as string[]);
  assert.ok(names.includes('jobio_profiler_calls_total') && names.includes('jobio_lustre_jobstats_operations_total'), 'docs/metrics.md lists the jobio metrics');
  return new Set(names);
}

/** Series the recording rules write (provisioning/prometheus/rules/*.yml `record:` names). */
function recordedSeries(): Set<string> {
  const dir = join(repo, 'provisioning', 'prometheus', 'rules');
  const names = readdirSync(dir).flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/^\s*- record: (\S+)$/gm)].map((m) => m[1] as string));
  assert.ok(names.includes('target:jobio_lustre_jobstats_operations:rate5m'), 'the recording rules are found');
  return new Set(names);
}

const dashboardFiles = () => readdirSync(join(repo, 'dashboards')).filter((f) => f.endsWith('.json'));

test('dashboards: valid JSON, known panel types and query types, only contract metric names or recording rules', () => {
  const metrics = contractMetrics();
  const recorded = recordedSeries();
  const files = dashboardFiles();
  assert.deepEqual(files.sort(), ['cluster-filesystem.json', 'host-gpu.json', 'job.json']);
  const panelTypes = new Set(['row', 'timeseries', 'table', 'stat', 'bargauge', 'barchart', 'jobio-jobio-panel']);
  const queryTypes = new Set(['summary', 'topTalkers', 'characterisation', 'population', 'trend', 'raw']);
  const uids = new Set<string>();
  const recordedUses = new Map<string, number>();
  for (const file of files) {
    const d = JSON.parse(readFileSync(join(repo, 'dashboards', file), 'utf8')) as { uid: string; panels: Panel[]; templating: { list: Array<{ name: string }> } };
    assert.ok(d.uid && !uids.has(d.uid), `${file}: unique uid`);
    uids.add(d.uid);
    const vars = new Set(d.templating.list.map((v) => v.name));
    for (const p of d.panels) {
      assert.ok(panelTypes.has(p.type), `${file}: panel "${p.title}" has a known type (${p.type})`);
      assert.ok(p.gridPos && p.gridPos.x + p.gridPos.w <= 24, `${file}: panel "${p.title}" fits the 24-column grid`);
      if (p.type === 'jobio-jobio-panel') {
        assert.ok(['summary', 'heatmap'].includes(p.options?.view), `${file}: "${p.title}" has a view`);
      }
      for (const t of p.targets ?? []) {
        const ds = (t['datasource'] as { type: string }).type;
        if (ds === 'jobio-jobio-datasource') {
          assert.ok(queryTypes.has(String(t['queryType'])), `${file}: "${p.title}" jobio query type ${String(t['queryType'])}`);
        }
        const text = JSON.stringify(t);
        // A metric name, or a recording rule's level:metric:operations name around one.
        for (const m of text.matchAll(/(?:[a-z_]+:)?jobio_[a-z_]+(?::[a-z0-9_]+)?/g)) {
          if (m[0].includes(':')) {
            assert.ok(recorded.has(m[0]), `${file}: "${p.title}" names ${m[0]}, which no recording rule writes`);
            recordedUses.set(file, (recordedUses.get(file) ?? 0) + 1);
          } else {
            assert.ok(metrics.has(m[0]), `${file}: "${p.title}" names ${m[0]}, which is not in the metric contract`);
          }
        }
        for (const v of text.matchAll(/\$([a-z_]+)/g)) {
          if (!v[1]?.startsWith('_')) {
            assert.ok(vars.has(v[1] as string), `${file}: "${p.title}" uses $${v[1]}, which is not a dashboard variable`);
          }
        }
      }
    }
  }
  // The aggregating views read the recording rules, not thousands of raw series.
  assert.ok((recordedUses.get('cluster-filesystem.json') ?? 0) >= 8, `cluster dashboard uses recording rules: ${recordedUses.get('cluster-filesystem.json')}`);
  assert.ok((recordedUses.get('job.json') ?? 0) >= 4, `job dashboard uses recording rules: ${recordedUses.get('job.json')}`);
  const heat = JSON.parse(readFileSync(join(repo, 'dashboards', 'cluster-filesystem.json'), 'utf8')).panels.find((p: Panel) => p.options?.view === 'heatmap');
  assert.equal(heat.options.heatmap.drillVariable, 'user', 'the cluster heatmap drills down into $user');
  assert.equal(heat.options.heatmap.jobDashboard, 'jobio-job', 'and links its rows to the job dashboard');
});

test('dashboards degrade gracefully: variables and core views need only the Prometheus data source', () => {
  // What the jobio plugin adds; everything else (rates, bandwidth, top jobs/users, GPU, CPU/memory) is core.
  const jobioOnly = new Set(['summary', 'characterisation', 'population', 'trend']);
  const jobDashboardVars = JSON.parse(readFileSync(join(repo, 'dashboards', 'job.json'), 'utf8')).templating.list.map((v: { name: string }) => v.name);
  assert.ok(jobDashboardVars.includes('jobid'), 'the job dashboard takes var-jobid (links from the panel set it)');
  for (const file of dashboardFiles()) {
    const d = JSON.parse(readFileSync(join(repo, 'dashboards', file), 'utf8')) as {
      panels: Panel[];
      templating: { list: Array<{ name: string; type: string; datasource?: { type: string }; definition?: string }> };
    };
    for (const v of d.templating.list.filter((x) => x.type === 'query')) {
      assert.equal(v.datasource?.type, 'prometheus', `${file}: variable $${v.name} comes from Prometheus`);
      assert.match(String(v.definition), /^label_values\(.+, [a-z]+\)$/, `${file}: $${v.name} is a label_values query`);
    }
    let core = 0;
    for (const p of d.panels) {
      const jobio = (p.targets ?? []).filter((t) => (t['datasource'] as { type: string }).type === 'jobio-jobio-datasource');
      for (const t of jobio) {
        assert.ok(jobioOnly.has(String(t['queryType'])), `${file}: "${p.title}" uses the jobio data source only for what it adds (${String(t['queryType'])})`);
      }
      if (p.type !== 'jobio-jobio-panel' && jobio.length === 0) {
        core++;
      }
    }
    assert.ok(core >= 5, `${file}: ${core} core panels on Prometheus alone`);
  }
  // Units: power and temperature on two axes, I/O time in seconds per second, CPU cores apart from memory.
  const gpu = JSON.parse(readFileSync(join(repo, 'dashboards', 'host-gpu.json'), 'utf8')).panels as Array<Panel & { fieldConfig: any }>;
  const power = gpu.find((p) => JSON.stringify(p.targets).includes('jobio_gpu_power_watts')) as Panel & { fieldConfig: any };
  assert.equal(power.fieldConfig.defaults.unit, 'watt');
  assert.deepEqual(power.fieldConfig.overrides[0].properties, [
    { id: 'unit', value: 'celsius' },
    { id: 'custom.axisPlacement', value: 'right' },
  ]);
  const ioTime = gpu.find((p) => JSON.stringify(p.targets).includes('rate(jobio_profiler_io_seconds_total')) as Panel & { fieldConfig: any };
  assert.equal(ioTime.fieldConfig.defaults.unit, 'suffix: s/s');
  const job = JSON.parse(readFileSync(join(repo, 'dashboards', 'job.json'), 'utf8')).panels as Array<Panel & { fieldConfig: any }>;
  const cpu = job.filter((p) => JSON.stringify(p.targets).includes('jobio_job_cpu_'));
  const mem = job.filter((p) => JSON.stringify(p.targets).includes('jobio_job_memory_'));
  assert.equal(cpu.length, 1);
  assert.equal(mem.length, 1);
  assert.notEqual(cpu[0], mem[0], 'CPU and memory in separate panels');
  assert.equal(cpu[0]?.fieldConfig.defaults.custom.axisLabel, 'cores');
  assert.equal(mem[0]?.fieldConfig.defaults.unit, 'bytes');
});

test('dashboards: every Prometheus query parses in promtool (variables and ranges filled in)', async () => {
  const exprs: string[] = [];
  for (const file of dashboardFiles()) {
    const d = JSON.parse(readFileSync(join(repo, 'dashboards', file), 'utf8')) as { panels: Panel[] };
    for (const p of d.panels) {
      for (const t of p.targets ?? []) {
        if ((t['datasource'] as { type: string }).type === 'prometheus') {
          exprs.push(
            String(t['expr'])
              .replace(/\$__(range|rate_interval|interval)/g, '5m')
              .replace(/\$[a-z_]+/g, 'x'),
          );
        }
      }
    }
  }
  assert.ok(exprs.length >= 20, `${exprs.length} queries`);
  const dir = mkdtempSync(join(tmpdir(), 'jobio-dash-promql-'));
  try {
    const rules = ['groups:', '  - name: dashboard-queries', '    rules:', ...exprs.flatMap((e, i) => [`      - record: dashboard_query_${i}`, `        expr: ${JSON.stringify(e)}`])].join('\n');
    writeFileSync(join(dir, 'queries.yml'), `${rules}\n`);
    const r = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('promtool', ['check', 'rules', join(dir, 'queries.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (b: Buffer) => (output += b.toString()));
      child.stderr.on('data', (b: Buffer) => (output += b.toString()));
      child.on('close', (code) => resolve({ code, output }));
    });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, new RegExp(`SUCCESS: ${exprs.length} rules found`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("provisioning/grafana: the data sources' intervals are the shipped Prometheus scrape interval", () => {
  const scrape = /^\s*scrape_interval: (\S+)$/m.exec(readFileSync(join(repo, 'provisioning', 'prometheus', 'prometheus.yml'), 'utf8'))?.[1];
  assert.equal(scrape, '30s');
  const ds = readFileSync(join(repo, 'provisioning', 'grafana', 'datasources', 'jobio.yaml'), 'utf8');
  assert.deepEqual(
    [...ds.matchAll(/^\s*(timeInterval|scrapeInterval): (\S+)$/gm)].map((m) => `${m[1]}=${m[2]}`),
    [`timeInterval=${scrape}`, `scrapeInterval=${scrape}`],
  );
});

test('provisioning/grafana: app, Prometheus and jobio data sources, dashboard provider', () => {
  const dir = join(repo, 'provisioning', 'grafana');
  const plugins = readFileSync(join(dir, 'plugins', 'jobio.yaml'), 'utf8');
  assert.match(plugins, /^apps:\n {2}- type: jobio-jobio-app$/m);
  const ds = readFileSync(join(dir, 'datasources', 'jobio.yaml'), 'utf8');
  assert.match(ds, /type: prometheus\n {4}uid: jobio-prometheus/);
  assert.match(ds, /type: jobio-jobio-datasource\n {4}uid: jobio/);
  assert.equal((ds.match(/access: proxy/g) ?? []).length, 2, 'both through the data proxy');
  const dash = readFileSync(join(dir, 'dashboards', 'jobio.yaml'), 'utf8');
  assert.match(dash, /type: file/);
  assert.match(dash, /path: \$JOBIO_DASHBOARDS/);
  for (const f of ['cluster-filesystem.json', 'job.json', 'host-gpu.json']) {
    const d = JSON.parse(readFileSync(join(repo, 'dashboards', f), 'utf8'));
    const dsVars = d.templating.list.filter((v: { type: string }) => v.type === 'datasource').map((v: { query: string }) => v.query);
    assert.deepEqual(dsVars, ['prometheus', 'jobio-jobio-datasource'], `${f}: data source variables match the provisioned types`);
  }
});
