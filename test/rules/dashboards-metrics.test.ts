// Every PromQL query of the generated dashboards (dashboards/*.json, panels and template variables)
// reads only metrics the exporter produces (docs/metrics.md, itself tested against real output) or
// series the recording rules record, and filters them only on labels those series carry. A renamed
// metric or a dropped recording rule otherwise shows up as an empty panel, not as an error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/exporter.js';

/** Labels Prometheus adds to every scraped series. */
const targetLabels = ['instance', 'job'];

/**
 * Documented metrics with their label names, from the catalogue's table rows (an empty labels cell: none).
 * A histogram is read through its `_bucket` series (with `le`) and its `_count`.
 */
function documentedMetrics(): Map<string, Set<string>> {
  const text = readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8');
  const metrics = new Map<string, Set<string>>();
  for (const m of text.matchAll(/^\| `(jobio_[a-z0-9_]+)` \| ([a-z]+) \|([^|]*)\|/gm)) {
    const labels = [...(m[3] ?? '').matchAll(/`([a-z_]+)`/g)].map((l) => l[1] ?? '');
    metrics.set(m[1] ?? '', new Set([...labels, ...targetLabels]));
    if (m[2] === 'histogram') {
      metrics.set(`${m[1] ?? ''}_bucket`, new Set([...labels, 'le', ...targetLabels]));
      metrics.set(`${m[1] ?? ''}_count`, new Set([...labels, ...targetLabels]));
    }
  }
  return metrics;
}

/** Recorded series with the labels their aggregation keeps (the outer `by (...)` of the rule). */
function recordedSeries(): Map<string, Set<string>> {
  const rulesDir = join(repoRoot, 'provisioning/prometheus/rules');
  const recorded = new Map<string, Set<string>>();
  for (const file of readdirSync(rulesDir).filter((f) => f.endsWith('.yml'))) {
    const doc = parse(readFileSync(join(rulesDir, file), 'utf8')) as { groups: Array<{ rules: Array<{ record?: string; expr: string }> }> };
    for (const rule of doc.groups.flatMap((g) => g.rules)) {
      if (!rule.record) continue;
      const by = /by \(([^)]*)\)/.exec(rule.expr)?.[1] ?? '';
      recorded.set(rule.record, new Set(by.split(',').map((l) => l.trim())));
    }
  }
  return recorded;
}

/** Every PromQL string of a dashboard: panel targets and query variables. */
function queriesOf(dashboard: unknown): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'expr' || key === 'query' || key === 'definition') && typeof value === 'string') found.push(value);
        else visit(value);
      }
    }
  };
  visit(dashboard);
  return found;
}

/** `name{matchers}` selectors of a query, and the bare names it reads. */
export function selectorsOf(query: string): Array<{ name: string; labels: string[] }> {
  const selectors: Array<{ name: string; labels: string[] }> = [];
  for (const m of query.matchAll(/\b((?:[a-z_]+:)?jobio_[a-z0-9_]+(?::[a-z0-9_]+)?)\b(\{[^}]*\})?/g)) {
    const labels = [...(m[2] ?? '').matchAll(/([a-zA-Z_]+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1] ?? '');
    selectors.push({ name: m[1] ?? '', labels });
  }
  return selectors;
}

const dashboardsDir = join(repoRoot, 'dashboards');
const dashboardFiles = readdirSync(dashboardsDir).filter((f) => f.endsWith('.json'));

test('the selector parser finds names and matched labels (so the check below can fail)', () => {
  assert.deepEqual(selectorsOf('sum(rate(jobio_x_total{jobid=~"$jobid", user!="a"}[5m])) / a:jobio_y:rate5m'), [
    { name: 'jobio_x_total', labels: ['jobid', 'user'] },
    { name: 'a:jobio_y:rate5m', labels: [] },
  ]);
});

test('dashboards read only documented metrics and recorded series, on labels they have', () => {
  const known = new Map([...documentedMetrics(), ...recordedSeries()]);
  assert.ok(dashboardFiles.length >= 3, `dashboards: ${dashboardFiles.join(', ')}`);
  const problems: string[] = [];
  let selectors = 0;
  for (const file of dashboardFiles) {
    const dashboard: unknown = JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8'));
    for (const query of queriesOf(dashboard)) {
      for (const { name, labels } of selectorsOf(query)) {
        selectors += 1;
        const have = known.get(name);
        if (!have) problems.push(`${file}: unknown series ${name}`);
        else for (const label of labels) if (!have.has(label)) problems.push(`${file}: ${name} has no label ${label}`);
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(selectors > 50, `selectors checked: ${selectors}`);
});

interface Variable {
  name: string;
  type: string;
  multi?: boolean;
  includeAll?: boolean;
}

/**
 * How each query variable may be matched: Grafana regex-escapes the value of a multi-value or "All"
 * variable (it becomes `(a|b)` or `.*`), so those need `=~`; a single value is inserted as it is, so
 * `=~` would read a job id like `123+0` or `run.1` as a regular expression: those need `=`.
 */
export function misusedVariables(dashboard: { templating: { list: Variable[] } }, queries: readonly string[]): string[] {
  const problems: string[] = [];
  for (const v of dashboard.templating.list.filter((x) => x.type === 'query')) {
    const regex = v.multi === true || v.includeAll === true;
    for (const query of queries) {
      for (const m of query.matchAll(new RegExp(`([a-zA-Z_]+)\\s*(=~|!~|!=|=)\\s*"\\$\\{?${v.name}\\}?"`, 'g'))) {
        const op = m[2] ?? '';
        const isRegexOp = op === '=~' || op === '!~';
        if (isRegexOp !== regex) problems.push(`${m[1] ?? ''}${op}"$${v.name}" (${regex ? 'multi-value' : 'single-value'} variable): ${query.slice(0, 80)}`);
      }
    }
  }
  return problems;
}

test('the variable check tells a single-value variable matched as a regex', () => {
  const dashboard = {
    templating: {
      list: [
        { name: 'jobid', type: 'query' },
        { name: 'target', type: 'query', multi: true, includeAll: true },
      ],
    },
  };
  assert.equal(misusedVariables(dashboard, ['x{jobid="$jobid", target=~"$target"}']).length, 0);
  assert.equal(misusedVariables(dashboard, ['x{jobid=~"$jobid"}', 'x{target="$target"}']).length, 2);
});

test('dashboards match single-value variables exactly and multi-value ones as regexes', () => {
  const problems: string[] = [];
  for (const file of dashboardFiles) {
    const dashboard = JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8')) as { templating: { list: Variable[] } };
    problems.push(...misusedVariables(dashboard, queriesOf(dashboard)).map((p) => `${file}: ${p}`));
  }
  assert.deepEqual(problems, []);
});
