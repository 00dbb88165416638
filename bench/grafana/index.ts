// Grafana plugin benchmark: density heatmap bucketing of 10,000 series × 720 steps (compute ms) and
// the built panel in headless Chromium (first paint, hover and click latency). Runs
// grafana-plugin/bench/run.mjs in the plugin's own package, which needs `npm ci --prefix grafana-plugin`
// and Debian's chromium.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pluginDir = fileURLToPath(new URL('../../grafana-plugin/', import.meta.url));

export async function run(): Promise<string> {
  if (!existsSync(`${pluginDir}node_modules/@grafana/ui`)) {
    throw new Error('grafana-plugin/node_modules is missing: run "npm ci --prefix grafana-plugin"');
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/run.mjs'], { cwd: pluginDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out.trim() + '\n') : reject(new Error(`grafana-plugin bench exited ${code}\n${out}\n${err}`))));
  });
}
