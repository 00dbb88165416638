#!/usr/bin/env node
// The `jobio` command. The CLI is written in TypeScript and compiled to dist/ by `npm run build`
// (run automatically by `npm ci` through the `prepare` script).
// This file is CommonJS (bin/package.json): `jobio run` starts inside every job and its fixed cost
// is measured against Node's own start (bench/run), so its path is one synchronous require() of
// the bundle scripts/bundle-cli.mjs makes, with no ES module loader at all.
'use strict';
const { statSync } = require('node:fs');
const { join } = require('node:path');

const dist = join(__dirname, '..', 'dist');
const compiled = join(dist, 'cli', 'main.js');
const bundled = join(dist, 'bundle', 'quick-main.cjs');
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;

/** The bundle for `run` and `preload-path`, unless it is missing or older than the compiled CLI. */
function quickEntry(argv) {
  if (argv[0] !== 'run' && argv[0] !== 'preload-path') return undefined;
  const bundle = mtime(bundled);
  return bundle !== undefined && bundle >= (mtime(compiled) ?? Infinity) ? require(bundled) : undefined;
}

function notBuilt() {
  process.stderr.write('jobio: not built yet; run `npm ci` (or `npm run build`) in the repository first\n');
  return 1;
}

async function start(argv) {
  const quick = quickEntry(argv);
  if (quick) return quick.main(argv);
  if (mtime(compiled) === undefined) return notBuilt();
  const { main } = await import(compiled);
  return main(argv);
}

start(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // The work is done. Normally the event loop is empty now and Node exits at once, after flushing
    // stdout. A native call that never returns (a hung NVML driver in a worker thread) would keep the
    // process alive forever, so leave a grace period for output to drain, then exit regardless.
    setTimeout(() => process.exit(code), 5000).unref();
  },
  (err) => {
    process.stderr.write(`jobio: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
