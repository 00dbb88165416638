#!/usr/bin/env node
// `npm test` runs the Grafana plugin's suites too, and grafana-plugin/ is its own npm package (the
// exporter never needs its toolchain). So that one `npm test` works after a plain `npm ci`, install
// the plugin's dependencies the first time they are missing. `npm install`, not `npm ci`: see .ci/run.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const plugin = fileURLToPath(new URL('../grafana-plugin/', import.meta.url));
// The linter came later than the first install: a checkout installed before it gets it too.
const missing = ['.package-lock.json', '@grafana/eslint-config/package.json'].some((f) => !existsSync(`${plugin}node_modules/${f}`));
if (missing) {
  console.log('jobio: installing grafana-plugin dependencies (first test run only)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const r = spawnSync(npm, ['install', '--no-audit', '--no-fund'], { cwd: plugin, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
