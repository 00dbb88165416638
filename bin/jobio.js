#!/usr/bin/env node
// The `jobio` command. The CLI is written in TypeScript and compiled to dist/ by `npm run build`
// (run automatically by `npm ci` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(entry)) {
  process.stderr.write('jobio: not built yet; run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(1);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
