// Rules of conduct found wanting in review (docs/architecture.md "Rules of conduct"): each case runs the same C program with and
// without the profiler and expects the same outcome.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, counted, proc, removeDir, run, runProfiled, tempDir, testBin } from './harness.js';

before(() => buildTests());

describe('profiler review cases', () => {
  test('a failed stat with an invalid buffer (EFAULT) is not dereferenced: same result, counted red', async () => {
    const dir = tempDir();
    const work = join(dir, 'work');
    mkdirSync(work);
    const plain = await run(testBin('t_review_badbuf'), [work]);
    assert.equal(plain.status, 0, plain.stderr.toString());
    const r = await runProfiled(testBin('t_review_badbuf'), [work], { dir });
    assert.equal(r.signal, null);
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(r.stdout.toString(), plain.stdout.toString());
    assert.deepEqual(counted(proc(r.dump, 't_review_badbuf').totals).access, [8, 0, 0]);
    removeDir(dir);
  });
  test('exit() from a signal handler that interrupted a periodic flush does not deadlock on the flush lock', async () => {
    const dir = tempDir();
    const work = join(dir, 'work');
    mkdirSync(work);
    // the program raises SIGUSR1 from inside the flush's sendto; its handler calls exit(0)
    const r = await runProfiled(testBin('t_review_sigexit'), [work], {
      dir,
      env: { JOBIO_TIMEFRAME: '1', JOBIO_SAMPLE_EVERY: '1' },
      timeoutMs: 20000,
    });
    assert.equal(r.signal, null, 'hung (killed at the timeout)');
    assert.equal(r.status, 0, r.stderr.toString());
    assert.equal(r.stdout.toString(), 'exit from the handler\n');
    removeDir(dir);
  });
});
