#!/usr/bin/env node
// The `jobio` command. The CLI is written in TypeScript and compiled to dist/ by `npm run build`
// (run automatically by `npm ci` through the `prepare` script).
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const bundled = fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url));
const mtime = (path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs;
// `jobio run` starts inside every job: it takes the bundle (scripts/bundle-cli.mjs), a few files
// instead of ~50 modules, unless the bundle is missing or older than the compiled CLI.
const quick = ['run', 'preload-path'].includes(process.argv[2] ?? '') && (mtime(bundled) ?? -1) >= (mtime(compiled) ?? Infinity);
const entry = quick ? bundled : compiled;
if (!existsSync(entry)) {
  process.stderr.write('jobio: not built yet; run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(1);
}
const { main } = await import(entry);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// The work is done. Normally the event loop is empty now and Node exits at once, after flushing
// stdout. A native call that never returns (a hung NVML driver in a worker thread) would keep the
// process alive forever, so leave a grace period for output to drain, then exit regardless.
setTimeout(() => process.exit(code), 5000).unref();
