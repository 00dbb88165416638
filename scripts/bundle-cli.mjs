#!/usr/bin/env node
// Part of `npm run build:ts`: bundles the compiled code of `jobio run` and `jobio preload-path`
// (dist/cli/quick-main.js and what it imports) into one CommonJS file, dist/bundle/quick-main.cjs.
// bin/jobio.js loads it for those two subcommands when it is not older than dist/cli/main.js.
// Why one CommonJS file: `jobio run` starts inside every job, and its fixed cost is measured against
// Node's own start (bench/run). Node 20 has no compile cache; ~50 ES modules, or a dozen ESM chunks,
// cost more to resolve, link and compile than one CommonJS file that require() reads at once.
// esbuild comes with the dev dependencies (through tsx); without it the step is skipped and the
// unbundled CLI is used.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
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
  // Whitespace and comments out (commander's are most of its source): less for V8 to scan at every
  // start (~14 M instructions of ~90 M over `node -e 0`, counted with callgrind). Names stay.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});

// V8's code cache of the bundle, for bin/jobio.js: written by a real `jobio run -- true` so that the
// functions of the run path are compiled in it, not only the top level (with it `jobio run` spends
// ~25 M instructions less compiling). Without the profiler library (build:ts alone, before
// build:native) `run --help` writes it. A cache from another Node version is refused by V8 and
// ignored: `npm run build` again after upgrading Node.
const jobio = `${root}bin/jobio.js`;
const env = { ...process.env, JOBIO_CODE_CACHE: 'write' };
const ran = spawnSync(process.execPath, [jobio, 'run', '--nvml-library', 'none', '--', 'true'], { env, stdio: 'ignore' });
if (ran.status !== 0) spawnSync(process.execPath, [jobio, 'run', '--help'], { env, stdio: 'ignore' });
if (!existsSync(`${root}dist/bundle/quick-main.cjs.v8-cache`)) console.error('bundle-cli: no code cache written: jobio run compiles its bundle at every start');
