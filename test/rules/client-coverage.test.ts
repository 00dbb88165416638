// The profiler-coverage rules (provisioning/prometheus/rules/jobio-client-coverage.yml) under
// promtool's unit tests: the recorded ratios on known rates, the alert firing for a badly covered job
// and staying quiet for its near misses (test/rules/client-coverage.test.yml). The rules are also in
// rules.test.ts's check of every rule file and of the metric names they read; Prometheus loads them
// through provisioning/prometheus/prometheus.yml.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireBinary } from '../helpers/binaries.js';

test('promtool test rules: profiler coverage recorded exactly, low coverage alerted, near misses quiet', () => {
  const r = spawnSync(requireBinary('promtool', 'prometheus'), ['test', 'rules', 'test/rules/client-coverage.test.yml'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(r.stdout, /SUCCESS/);
});

test('the example Prometheus configuration loads the coverage rules', () => {
  assert.match(readFileSync(join(repoRoot, 'provisioning/prometheus/prometheus.yml'), 'utf8'), /^\s+- rules\/jobio-client-coverage\.yml$/m);
});
