#!/usr/bin/env node
// Part of `npm run build:ts`: bundles the compiled code of `jobio run` and `jobio preload-path`
// (dist/cli/quick-main.js and what it imports) into one CommonJS file, dist/bundle/quick-main.cjs.
// bin/jobio.js loads it for those two subcommands when it is not older than dist/cli/main.js.
// Why one CommonJS file: `jobio run` starts inside every job, and its fixed cost is measured against
// Node's own start (bench/run). Node 20 has no compile cache; ~50 ES modules, or a dozen ESM chunks,
// cost more to resolve, link and compile than one CommonJS file that require() reads at once.
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
  entryPoints: [`${root}dist/cli/quick-main.js`],
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outfile: `${root}dist/bundle/quick-main.cjs`,
  // commander is bundled; the YAML parser (loaded only for --config) and the rest stay with Node's resolution
  external: ['yaml', 'express', 'prom-client', 'pino', 'bcryptjs', 'node-addon-api'],
  // The modules find the addons, the library and package.json from their own location
  // (import.meta.url): the bundle's, dist/bundle/, which sits at the same depth as dist/<module dir>/.
  define: { 'import.meta.url': '__jobioModuleUrl' },
  banner: { js: "const __jobioModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
