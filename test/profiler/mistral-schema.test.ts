// The record validator that every `jobio run --output` test uses, held against example records of
// every Mistral record type (test/fixtures/mistral): it accepts them all, and names what is wrong in
// each broken one. So "valid Mistral" in the other tests means the manual's shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readValidLog, validateRecord } from './mistral-schema.js';

const fixture = (name: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/mistral/${name}`, import.meta.url)), 'utf8');

test('every example record of the manual is valid, and every record type is among them', () => {
  const records = readValidLog(fixture('manual-examples.jsonl'));
  assert.equal(records.length, 12);
  const types = new Set(records.map((r) => `${String(r.type)}${r.jobtotal === true ? ' (job total)' : ''}`));
  assert.deepEqual([...types].sort(), ['gpu', 'jobsummary (job total)', 'mountpoint', 'mountpoint (job total)', 'mountpointsummary (job total)', 'network', 'resources', 'resources (job total)']);
});

test('each broken example is rejected with its problem named', () => {
  const cases = fixture('manual-examples-invalid.jsonl')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { problem: string; record: unknown });
  assert.equal(cases.length, 14);
  for (const c of cases) {
    const errors = validateRecord(c.record);
    assert.ok(
      errors.some((e) => e.includes(c.problem)),
      `${c.problem}: got ${JSON.stringify(errors)}`,
    );
  }
});
