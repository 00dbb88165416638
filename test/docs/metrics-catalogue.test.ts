// docs/metrics.md is the metric catalogue. This test keeps it true: every jobio_* metric family the
// exporter really produces (the golden expositions, which other tests compare with live /metrics
// output, plus a live scrape of the default exporter) is documented with its type and labels, and
// nothing is documented that the exporter never produces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, scrape, startExporter } from '../helpers/exporter.js';
import { parseExposition } from '../profiler/exposition.js';

interface Family {
  type: string;
  labels: Set<string>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.prom') ? [path] : [];
  });
}

/** Metric families in an exposition text, with the label names seen on their samples. */
export function familiesOf(text: string, into = new Map<string, Family>()): Map<string, Family> {
  for (const line of text.split('\n')) {
    const typeMatch = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (typeMatch?.[1] && typeMatch[2] && !into.has(typeMatch[1])) into.set(typeMatch[1], { type: typeMatch[2], labels: new Set() });
  }
  for (const sample of parseExposition(text)) {
    const family = into.get(sample.name) ?? into.get(sample.name.replace(/_(bucket|sum|count)$/, ''));
    for (const label of Object.keys(sample.labels)) {
      if (label !== 'le' && label !== 'quantile') family?.labels.add(label);
    }
  }
  return into;
}

/** Rows `| \`jobio_name\` | type | \`a\`, \`b\` | help |` of docs/metrics.md. */
function documented(markdown: string): Map<string, Family> {
  const docs = new Map<string, Family>();
  for (const line of markdown.split('\n')) {
    const row = /^\|\s*`(jobio_[a-z0-9_]+)`\s*\|\s*([a-z]+)\s*\|([^|]*)\|/.exec(line);
    if (!row?.[1] || !row[2]) continue;
    const labels = new Set([...(row[3] ?? '').matchAll(/`([a-zA-Z_][a-zA-Z0-9_]*)`/g)].map((m) => m[1] ?? ''));
    docs.set(row[1], { type: row[2], labels });
  }
  return docs;
}

test('docs/metrics.md documents exactly the metrics the exporter produces', async () => {
  const produced = new Map<string, Family>();
  for (const file of walk(join(repoRoot, 'test/golden'))) familiesOf(readFileSync(file, 'utf8'), produced);
  const exporter = await startExporter([]);
  try {
    familiesOf(await scrape(`${exporter.url}/metrics`), produced);
  } finally {
    await exporter.stop();
  }
  const docs = documented(readFileSync(join(repoRoot, 'docs/metrics.md'), 'utf8'));
  const problems: string[] = [];
  for (const [name, family] of produced) {
    if (!name.startsWith('jobio_')) continue;
    const doc = docs.get(name);
    if (!doc) {
      problems.push(`${name} (${family.type}) is produced but not documented`);
      continue;
    }
    if (doc.type !== family.type) problems.push(`${name}: documented as ${doc.type}, produced as ${family.type}`);
    for (const label of family.labels) if (!doc.labels.has(label)) problems.push(`${name}: label ${label} is produced but not documented`);
  }
  for (const name of docs.keys()) if (!produced.has(name)) problems.push(`${name} is documented but no golden or live output produces it`);
  assert.deepEqual(problems, []);
});
