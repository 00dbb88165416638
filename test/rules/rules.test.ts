// The Prometheus rules in provisioning/prometheus/rules, checked and unit-tested by promtool on
// synthetic series (test/rules/jobio-rules.test.yml), and every metric they read is one the exporter
// really produces (docs/metrics.md, itself tested against real output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';

const rulesDir = join(repoRoot, 'provisioning/prometheus/rules');
const ruleFiles = readdirSync(rulesDir)
  .filter((f) => f.endsWith('.yml'))
  .map((f) => join(rulesDir, f));

function promtool(args: string[]): { status: number | null; output: string } {
  const r = spawnSync(requireBinary('promtool', 'prometheus'), args, { cwd: repoRoot, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('promtool check rules accepts every rule file', () => {
  const r = promtool(['check', 'rules', ...ruleFiles]);
  assert.equal(r.status, 0, r.output);
});

test('promtool test rules: each alert fires on its case and not on its neighbours', () => {
  const testFiles = readdirSync(join(repoRoot, 'test/rules'))
    .filter((f) => f.endsWith('.test.yml'))
    .map((f) => join('test/rules', f));
  assert.ok(testFiles.length >= 2, `rule test files: ${testFiles.join(', ')}`);
  const r = promtool(['test', 'rules', ...testFiles]);
  assert.equal(r.status, 0, r.output);
  assert.match(r.output, /SUCCESS/);
});

test('the rules read only metrics the exporter produces or other rules record', () => {
  const documented = new Set([...readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8').matchAll(/^\| `(jobio_[a-z0-9_]+)`/gm)].map((m) => m[1]));
  const recorded = new Set<string>();
  const exprs: string[] = [];
  for (const file of ruleFiles) {
    const doc = parse(readFileSync(file, 'utf8')) as { groups: Array<{ rules: Array<{ record?: string; expr: string }> }> };
    for (const group of doc.groups) {
      for (const rule of group.rules) {
        if (rule.record) recorded.add(rule.record);
        exprs.push(rule.expr);
      }
    }
  }
  const unknown: string[] = [];
  for (const expr of exprs) {
    for (const m of expr.matchAll(/\b(jobio_[a-z0-9_]+|[a-z_]+:jobio_[a-z0-9_]+:[a-z0-9_]+)\b/g)) {
      const name = m[1] ?? '';
      if (!documented.has(name) && !recorded.has(name)) unknown.push(name);
    }
  }
  assert.deepEqual(unknown, []);
});
