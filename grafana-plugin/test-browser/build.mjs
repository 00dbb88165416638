// Bundles the harness page (host.tsx: shared libraries + AMD loader) with esbuild into
// test-output/harness/, with the captured Prometheus responses beside it.
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = join(root, 'test-output', 'harness');

export async function buildHarness() {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(root, 'test-browser', 'host.tsx')],
    bundle: true,
    format: 'iife',
    outfile: join(outDir, 'bundle.js'),
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"', global: 'window' },
    // @grafana/ui's ESM build default-imports CJS react-custom-scrollbars-2; esbuild's interop breaks
    // that (React error #130), so the host takes the CJS build (toolchain notes), and data/runtime too:
    // mixing builds would give two @grafana/data copies, hence two ThemeContexts.
    alias: Object.fromEntries(['ui', 'data', 'runtime'].map((p) => [`@grafana/${p}`, join(root, `node_modules/@grafana/${p}/dist/cjs/index.cjs`)])),
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.png': 'file', '.svg': 'text' },
    minify: true,
    logLevel: 'error',
  });
  const fixtures = join(root, 'src', '__fixtures__', 'prometheus-real');
  const captures = {};
  for (const f of readdirSync(fixtures)) {
    if (f.endsWith('.json') && f !== 'manifest.json') {
      captures[f.replace(/\.json$/, '')] = JSON.parse(readFileSync(join(fixtures, f), 'utf8'));
    }
  }
  const manifest = readFileSync(join(fixtures, 'manifest.json'), 'utf8');
  writeFileSync(join(outDir, 'captures.js'), `window.__captures = ${JSON.stringify(captures)};\nwindow.__manifest = ${manifest};\n`);
  writeFileSync(
    join(outDir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>jobio harness</title>
<script>window.grafanaBootData = { settings: { buildInfo: { version: '13.1.0' }, featureToggles: {}, bootData: {} }, user: { timezone: 'utc', theme: 'dark' }, navTree: [] };</script>
<script src="captures.js"></script></head>
<body style="margin:0;padding:12px"><div id="root"></div><script src="bundle.js"></script></body></html>\n`,
  );
}
