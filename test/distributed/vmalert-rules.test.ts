// vmalert accepts jobio's rule files as shipped (not only the time-scaled copies of the
// distributed test): every rule file in provisioning/prometheus/rules, checked by `vmalert -dryRun`,
// and a broken file is refused (so the check can fail); and the shipped vmalert and Prometheus
// configurations load all of them (a rule file left out is an alert that silently never runs); and
// vmalert takes the shipped vmalert.default's flags as written, alert links included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';
import { provisionedArgs } from './services.js';

function dryRun(files: readonly string[]): { status: number | null; output: string } {
  const r = spawnSync(requireBinary('vmalert', 'victoria-metrics'), ['-dryRun', ...files.map((f) => `-rule=${f}`)], { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('vmalert -dryRun accepts every shipped rule file and refuses a broken one', () => {
  const dir = join(repoRoot, 'provisioning/prometheus/rules');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .map((f) => join(dir, f));
  assert.ok(files.length >= 2);
  const ok = dryRun(files);
  assert.equal(ok.status, 0, ok.output);
  const tmp = mkdtempSync(join(tmpdir(), 'jobio-vmalert-'));
  try {
    const bad = join(tmp, 'bad.yml');
    writeFileSync(bad, 'groups:\n  - name: x\n    rules:\n      - alert: A\n        expr: sum(\n');
    const refused = dryRun([...files, bad]);
    assert.notEqual(refused.status, 0);
    assert.match(refused.output, /bad prometheus expr/);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('vmalert.default and prometheus.yml load every shipped rule file', () => {
  const shipped = readdirSync(join(repoRoot, 'provisioning/prometheus/rules'))
    .filter((f) => f.endsWith('.yml'))
    .sort();
  const vmalert = provisionedArgs('vmalert.default')
    .filter((a) => a.startsWith('-rule='))
    .map((a) => basename(a.slice('-rule='.length)))
    .sort();
  assert.deepEqual(vmalert, shipped);
  const prometheus = parse(readFileSync(join(repoRoot, 'provisioning/prometheus/prometheus.yml'), 'utf8')) as { rule_files: string[] };
  assert.deepEqual(prometheus.rule_files.map((f) => basename(f)).sort(), shipped);
});

test('vmalert.default runs as written (vmalert -dryRun) and sets the alert links to a full URL', () => {
  const args = provisionedArgs('vmalert.default').map((a) => a.replace(/^-rule=\/etc\/jobio\/rules\//, `-rule=${join(repoRoot, 'provisioning/prometheus/rules')}/`));
  const r = spawnSync(requireBinary('vmalert', 'victoria-metrics'), ['-dryRun', ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  const external = args.find((a) => a.startsWith('-external.url='))?.slice('-external.url='.length) ?? '';
  assert.match(external, /^https?:\/\/[^/]+/, 'links need a scheme and host, not a bare host name');
  assert.ok(args.includes('-external.alert.source=alerting/list'));
});
