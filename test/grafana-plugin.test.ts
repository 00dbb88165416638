// The Grafana plugin (grafana-plugin/, its own npm package) as CI builds and tests it: typecheck,
// webpack build, the offline plugin.json checker, jest, and the Chromium test of the built modules.
// Needs `npm ci --prefix grafana-plugin` and Debian's chromium (`apt-get install -y chromium`); fails,
// with that instruction, when either is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pluginDir = fileURLToPath(new URL('../grafana-plugin/', import.meta.url));
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function requireInstall(): void {
  assert.ok(
    existsSync(join(pluginDir, 'node_modules', '@grafana', 'ui')),
    'grafana-plugin/node_modules is missing: run "npm ci --prefix grafana-plugin" (CI must install the plugin package)',
  );
}

function run(args: string[], timeoutMs: number, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: pluginDir, env: { ...process.env, NODE_ENV: 'test', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function step(args: string[], timeoutMs: number, env?: Record<string, string>): Promise<string> {
  requireInstall();
  const r = await run(args, timeoutMs, env);
  assert.equal(r.code, 0, `grafana-plugin: node ${args.join(' ')} exited ${r.code}\n${r.output}`);
  return r.output;
}

const bin = (pkg: string, file: string) => join(pluginDir, 'node_modules', pkg, file);

test('grafana-plugin: typecheck (tsc --noEmit, strict)', async () => {
  await step([bin('typescript', 'bin/tsc'), '-p', 'tsconfig.json', '--noEmit'], 180_000);
});

test('grafana-plugin: webpack build produces AMD modules in dist/', async () => {
  await step(['scripts/build.mjs'], 240_000);
  for (const m of ['module.js', 'panel/module.js', 'datasource/module.js']) {
    assert.match(readFileSync(join(pluginDir, 'dist', m), 'utf8'), /^define\(\[/, `dist/${m} is AMD`);
  }
});

test('grafana-plugin: plugin.json checker passes on dist/', async () => {
  const out = await step(['scripts/check-plugin.mjs'], 60_000);
  assert.match(out, /\d+ passed, 0 failed/);
});

test('grafana-plugin: plugin.json checker rejects a broken dist/', async () => {
  requireInstall();
  const broken = mkdtempSync(join(tmpdir(), 'jobio-dist-'));
  try {
    cpSync(join(pluginDir, 'dist'), broken, { recursive: true });
    const panelJson = join(broken, 'panel', 'plugin.json');
    const json = JSON.parse(readFileSync(panelJson, 'utf8'));
    json.info.version = '%VERSION%';
    json.dependencies.grafanaDependency = 'twelve';
    writeFileSync(panelJson, JSON.stringify(json));
    rmSync(join(broken, 'datasource', 'img'), { recursive: true });
    const r = await run(['scripts/check-plugin.mjs', broken], 60_000);
    assert.notEqual(r.code, 0, r.output);
    assert.match(r.output, /not ok - panel\/plugin.json: %VERSION% and %TODAY% replaced/);
    assert.match(r.output, /not ok - panel\/plugin.json: grafanaDependency "twelve" is a semver range/);
    assert.match(r.output, /not ok - datasource\/plugin.json: logo small/);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
});

test('grafana-plugin: jest (components, pure functions, data source on captured Prometheus responses)', async () => {
  const out = await step([bin('jest', 'bin/jest.js'), '--runInBand', '--ci'], 480_000);
  assert.match(out, /Tests:\s+\d+ passed, \d+ total/);
});

test('grafana-plugin: headless Chromium renders the built panel (both views, dark and light) and drills down', async () => {
  requireInstall();
  assert.ok(existsSync(chromium), `Chromium not found at ${chromium}: install it with "apt-get install -y chromium" (CI installs it)`);
  const out = await step(['test-browser/run.mjs'], 300_000);
  assert.match(out, /4 passed, 0 failed/);
});
