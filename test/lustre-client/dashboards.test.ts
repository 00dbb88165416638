// The Lustre client panels of the generated dashboards: the job dashboard's profiler-coverage panel
// and the cluster dashboard's per-node density heatmaps that drill down to $client_node and on to the
// job dashboard. Every PromQL expression of both dashboards must parse (promtool check rules on a
// throw-away rule file with the Grafana variables filled in).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';

interface Panel {
  type: string;
  title: string;
  targets?: Array<{ expr?: string }>;
  options?: { view?: string; heatmap?: { drillVariable?: string; drillLabel?: string } };
  fieldConfig?: { defaults?: { links?: Array<{ url: string }> } };
}
interface Dashboard {
  panels: Panel[];
  templating: { list: Array<{ name: string }> };
}

const load = (file: string): Dashboard => JSON.parse(readFileSync(join(repoRoot, 'dashboards', file), 'utf8')) as Dashboard;

test("job dashboard: a profiler-coverage panel over the job's client and profiler bytes", () => {
  const coverage = load('job.json').panels.find((p) => p.title.startsWith('Profiler coverage'));
  assert.ok(coverage, 'coverage panel');
  const expr = coverage.targets?.[0]?.expr ?? '';
  for (const name of ['jobio_profiler_read_bytes_total', 'jobio_profiler_write_bytes_total', 'jobio_lustre_client_read_bytes_total', 'jobio_lustre_client_write_bytes_total'])
    assert.ok(expr.includes(name), name);
  assert.match(expr, /jobid="\$jobid"/);
});

test('cluster dashboard: per-node client bandwidth and metadata density heatmaps drill down to node, then job', () => {
  const d = load('cluster-filesystem.json');
  assert.ok(d.templating.list.some((v) => v.name === 'client_node'));
  const heatmaps = d.panels.filter((p) => p.options?.view === 'heatmap' && p.options.heatmap?.drillVariable === 'client_node');
  assert.equal(heatmaps.length, 2);
  for (const h of heatmaps) assert.equal(h.options?.heatmap?.drillLabel, 'instance');
  assert.match(heatmaps.map((h) => h.targets?.[0]?.expr).join('\n'), /jobio_lustre_client_operations_total\{operation!~"read\|write"\}/);
  const byJob = d.panels.find((p) => p.title.includes('selected client nodes by job'));
  assert.match(byJob?.fieldConfig?.defaults?.links?.[0]?.url ?? '', /^\/d\/jobio-job\/.*var-jobid=\$\{__field\.labels\.jobid\}/);
});

test('every PromQL expression of the cluster and job dashboards parses', () => {
  const exprs: string[] = [];
  for (const file of ['cluster-filesystem.json', 'job.json']) {
    for (const p of load(file).panels)
      for (const t of p.targets ?? [])
        if (t.expr)
          exprs.push(
            t.expr
              .replace(/\$__rate_interval/g, '5m')
              .replace(/\$__range/g, '1h')
              .replace(/\$[a-z_]+/g, 'x'),
          );
  }
  const dir = mkdtempSync(join(tmpdir(), 'jobio-dash-'));
  try {
    const file = join(dir, 'exprs.yml');
    writeFileSync(file, `groups:\n  - name: dashboards\n    rules:\n${exprs.map((e, i) => `      - record: expr_${i}\n        expr: ${JSON.stringify(e)}\n`).join('')}`);
    const r = spawnSync(requireBinary('promtool', 'prometheus'), ['check', 'rules', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
