#!/usr/bin/env node
// Part of `npm run build:ts`: bundles the compiled CLI (dist/cli/main.js) into dist/bundle/, one file
// per subcommand plus shared chunks, so `jobio run` loads a handful of files instead of ~50 modules
// (Node 20 has no compile cache; module loading was most of `jobio run`'s start-up). bin/jobio.js
// uses the bundle for `run` and `preload-path` when it is not older than dist/cli/main.js.
// esbuild comes with the dev dependencies (through tsx); without it the step is skipped and the
// unbundled CLI is used.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.error('bundle-cli: esbuild not installed (production install?): jobio run uses the unbundled CLI');
  process.exit(0);
}
rmSync(`${root}dist/bundle`, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [`${root}dist/cli/main.js`],
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: `${root}dist/bundle`,
  // commander is bundled (every command loads it); the rest is left to Node's resolution: the YAML
  // parser is loaded only for --config, and the exporter's web stack is not on the bundled paths.
  external: ['yaml', 'express', 'prom-client', 'pino', 'bcryptjs', 'node-addon-api'],
  // commander is CommonJS: its require() calls of Node's modules need a real require in ESM output
  banner: { js: "import { createRequire as __jobioCreateRequire } from 'node:module'; const require = __jobioCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
