// Strict TypeScript is part of the build contract: `npm run typecheck` (tsc --noEmit over the
// exporter, tests and benchmarks) must pass, so a type error fails CI like a failing test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './helpers/exporter.js';

test('tsc --noEmit passes on the whole project', () => {
  const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], { cwd: repoRoot, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});
