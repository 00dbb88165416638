// `jobio` installed as the docs say (a link to bin/jobio.js on PATH, no npx) runs `jobio run` from
// any directory, through the bundle and its code cache; a cache V8 refuses is ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot, jobioBin } from '../helpers/exporter.js';

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file args` with PATH set to `path` (and node's own directory, for the #! line), in `cwd`. */
function runOnPath(file: string, args: readonly string[], path: string, cwd: string): Promise<Result> {
  // JOBIO_CODE_CACHE=report: bin/jobio.js says whether V8 took the bundle's code cache
  const env = { ...process.env, PATH: `${path}:${dirname(process.execPath)}`, JOBIO_CODE_CACHE: 'report' };
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const summaryLine = /^jobio run: sh -c exit 3 \(exit status 3\)$/m;

test('jobio on PATH through a link (and a link to the link, as npm link makes) runs jobio run from any directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-install-'));
  const bin = join(dir, 'bin');
  const npmBin = join(dir, 'npm-global', 'bin');
  const work = join(dir, 'work');
  for (const d of [bin, npmBin, work]) mkdirSync(d, { recursive: true });
  symlinkSync(jobioBin, join(bin, 'jobio'));
  symlinkSync(join(bin, 'jobio'), join(npmBin, 'jobio'));
  for (const path of [bin, npmBin]) {
    const r = await runOnPath('jobio', ['run', '--', 'sh', '-c', 'exit 3'], path, work);
    assert.equal(r.code, 3, `exit status passed through (stderr: ${r.stderr})`);
    assert.match(r.stderr, summaryLine);
    assert.match(r.stderr, / over 1 process\(es\)/);
    assert.match(r.stderr, /^jobio: code cache used$/m, 'the cache npm run build wrote is taken');
    const p = await runOnPath('jobio', ['preload-path'], path, work);
    assert.equal(p.code, 0);
    assert.equal(p.stdout, `${join(repoRoot, 'native/profiler/build/libjobio.so')}\n`);
  }
});

test('a code cache V8 refuses (from another Node version, or damaged) is ignored: the bundle is compiled afresh', async () => {
  // A copy of the installed layout whose cache is garbage, newer than the bundle so it is tried.
  const dir = mkdtempSync(join(tmpdir(), 'jobio-cache-'));
  for (const d of ['bin', 'dist/bundle', 'dist/cli']) mkdirSync(join(dir, d), { recursive: true });
  for (const f of ['bin/jobio.js', 'bin/package.json', 'package.json', 'dist/bundle/quick-main.cjs']) copyFileSync(join(repoRoot, f), join(dir, f));
  for (const d of ['native', 'node_modules']) symlinkSync(join(repoRoot, d), join(dir, d));
  writeFileSync(join(dir, 'dist/cli/main.js'), '');
  utimesSync(join(dir, 'dist/cli/main.js'), new Date(0), new Date(0));
  writeFileSync(join(dir, 'dist/bundle/quick-main.cjs.v8-cache'), Buffer.alloc(4096, 0x5a));
  const r = await runOnPath(join(dir, 'bin/jobio.js'), ['run', '--', 'sh', '-c', 'exit 3'], join(dir, 'bin'), dir);
  assert.equal(r.code, 3, `stderr: ${r.stderr}`);
  assert.match(r.stderr, /^jobio: code cache refused$/m);
  assert.match(r.stderr, summaryLine);
});
