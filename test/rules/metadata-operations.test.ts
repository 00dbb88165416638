// JobioMetadataStorm counts metadata operations only. Its list must cover every operation an MDT
// prints in the captured job_stats (test/fixtures/lustre, as the exporter exports them in the
// goldens), and leave out the Data-on-MDT data operations (read, write, punch).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/exporter.js';

const DATA_OPERATIONS = ['read', 'write', 'punch'];

function stormOperations(): string[] {
  const doc = parse(readFileSync(join(repoRoot, 'provisioning/prometheus/rules/jobio-alerts.yml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string; expr: string }> }> };
  const rule = doc.groups.flatMap((g) => g.rules).find((r) => r.alert === 'JobioMetadataStorm');
  const m = /operation=~"([^"]+)"/.exec(rule?.expr ?? '');
  assert.ok(m, 'JobioMetadataStorm filters on operation=~"…"');
  return (m[1] ?? '').split('|');
}

function capturedMdtOperations(): Set<string> {
  const dir = join(repoRoot, 'test/golden/lustre_jobstats');
  const ops = new Set<string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.prom'))) {
    for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/^jobio_lustre_jobstats_operations_total\{[^}]*target="[^"]*-MDT[0-9a-fA-F]+"[^}]*operation="([^"]+)"/gm)) ops.add(m[1]!);
  }
  return ops;
}

test('JobioMetadataStorm: every captured MDT operation is metadata or data, and only metadata counts', () => {
  const listed = stormOperations();
  const captured = capturedMdtOperations();
  assert.ok(captured.size >= 10, `MDT operations in the goldens: ${[...captured].join(', ')}`);
  for (const op of captured) assert.ok(listed.includes(op) || DATA_OPERATIONS.includes(op), `MDT operation ${op} is neither in the storm's list nor a data operation`);
  for (const op of DATA_OPERATIONS) assert.ok(!listed.includes(op), `${op} is data, not metadata`);
  // The MDT operations of Lustre 2.10 to 2.17 (the parser's layouts), beyond those in the captures.
  for (const op of ['link', 'mkdir', 'rmdir', 'crossdir_rename', 'migrate', 'parallel_rename_dir']) assert.ok(listed.includes(op), op);
});
