#!/usr/bin/env node
// The `jobio` command. The CLI is written in TypeScript and compiled to dist/ by `npm run build`
// (run automatically by `npm ci` through the `prepare` script).
// This file is CommonJS (bin/package.json): `jobio run` starts inside every job and its fixed cost
// is measured against Node's own start (bench/run), so its path is one bundle file
// (scripts/bundle-cli.mjs) compiled from V8's code cache, with no ES module loader at all.
'use strict';
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

const dist = join(__dirname, '..', 'dist');
const compiled = join(dist, 'cli', 'main.js');
const bundled = join(dist, 'bundle', 'quick-main.cjs');
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;

/**
 * Runs the bundle as require() would, but compiled with the code cache beside it when that is not
 * older than the bundle (V8 itself refuses a cache from another Node or V8 version and compiles
 * afresh). `npm run build` writes the cache by running `jobio run -- true` with
 * JOBIO_CODE_CACHE=write, after the run, so the functions of the run path are in it;
 * JOBIO_CODE_CACHE=report says on stderr whether the cache was used, refused or missing.
 */
function loadBundle(path, bundleMtime) {
  const cachePath = `${path}.v8-cache`;
  const cachedData = (mtime(cachePath) ?? -1) >= bundleMtime ? readFileSync(cachePath) : undefined;
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${readFileSync(path, 'utf8')}\n})`;
  const script = new Script(wrapped, { filename: path, cachedData });
  if (process.env.JOBIO_CODE_CACHE === 'report') {
    process.stderr.write(`jobio: code cache ${cachedData === undefined ? 'missing' : script.cachedDataRejected ? 'refused' : 'used'}\n`);
  }
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(path), module, path, dirname(path));
  const writeCache = () => {
    if (process.env.JOBIO_CODE_CACHE !== 'write') return;
    try {
      writeFileSync(cachePath, script.createCachedData());
    } catch (err) {
      process.stderr.write(`jobio: cannot write the code cache ${cachePath}: ${err.message}\n`); // the run's status stands
    }
  };
  return { main: (argv) => module.exports.main(argv).finally(writeCache) };
}

/** The bundle for `run` and `preload-path`, unless it is missing or older than the compiled CLI. */
function quickEntry(argv) {
  if (argv[0] !== 'run' && argv[0] !== 'preload-path') return undefined;
  const bundle = mtime(bundled);
  return bundle !== undefined && bundle >= (mtime(compiled) ?? Infinity) ? loadBundle(bundled, bundle) : undefined;
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
