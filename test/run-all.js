#!/usr/bin/env node
// `npm test`: every suite through Node's test runner, so CI reads one summary at the end.
//   - unit tests beside the code:          exporter/src/**/*.test.ts
//   - cross-component and end-to-end tests: test/**/*.test.ts (these spawn the built CLI, a real
//     Prometheus, real programs under the profiler, the Grafana plugin's own jest suite and Chromium)
// `npm run test:unit` (this script with --unit): only the unit tests beside the code, in about a minute.
// Set JOBIO_TEST_FILTER=<substring> to run only the files whose path contains it.
// Each test file runs with its own TMPDIR, removed when it ends (test/helpers/own-tmpdir.mjs).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function findTests(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findTests(path));
    else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path));
  }
  return found;
}

const filter = process.env.JOBIO_TEST_FILTER ?? '';
const unitOnly = process.argv.includes('--unit');
const files = [...findTests(join(root, 'exporter/src')), ...(unitOnly ? [] : findTests(join(root, 'test')))].filter((f) => f.includes(filter)).sort();
if (files.length === 0) {
  console.error(`no test files match "${filter}"`);
  process.exit(1);
}
// A file's whole run is one test to the runner, so the limit bounds the longest file: grafana-plugin's
// (two type-checks, webpack, jest, headless Chromium) needs about 400 s on two idle cores and more on a
// loaded machine; the steps inside it have their own limits, so a hang still ends.
const FILE_LIMIT_MS = 900_000;
const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', './test/helpers/own-tmpdir.mjs', '--test', '--test-concurrency=2', `--test-timeout=${FILE_LIMIT_MS}`, ...files], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
