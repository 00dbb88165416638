// Lint and format are part of the build contract like the types: `npm run lint` at the root (typescript-eslint,
// type-aware, over the exporter, tests and benchmarks) and in grafana-plugin/ (Grafana's shared
// configuration) must report nothing, so a finding fails CI like a failing test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers/exporter.js';

function eslint(cwd: string, args: readonly string[]): { status: number | null; output: string } {
  const bin = join(cwd, 'node_modules/eslint/bin/eslint.js');
  assert.ok(existsSync(bin), `${bin} is missing: run npm ci (and npm install --prefix grafana-plugin)`);
  const r = spawnSync(process.execPath, [bin, '--max-warnings', '0', ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test('npm run lint: the exporter, tests and benchmarks have no finding', () => {
  const r = eslint(repoRoot, ['.']);
  assert.equal(r.status, 0, r.output);
});

test('npm run lint in grafana-plugin: the plugin sources have no finding', () => {
  const plugin = join(repoRoot, 'grafana-plugin');
  const r = eslint(plugin, ['src']);
  assert.equal(r.status, 0, r.output);
});

test('npm run format:check: the code is as Prettier formats it (.prettierrc.json)', () => {
  const bin = join(repoRoot, 'node_modules/prettier/bin/prettier.cjs');
  assert.ok(existsSync(bin), `${bin} is missing: run npm ci`);
  const globs = ['exporter/**/*.ts', 'test/**/*.{ts,js,mjs}', 'bench/**/*.{ts,js,mjs}', 'scripts/**/*.{js,mjs}', 'bin/*.js', 'grafana-plugin/{src,test-browser,scripts,bench}/**/*.{ts,tsx,js,mjs}'];
  const r = spawnSync(process.execPath, [bin, '--check', '--log-level', 'warn', ...globs], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(r.status, 0, `run npm run format; files not formatted:\n${r.stdout}${r.stderr}`);
});
