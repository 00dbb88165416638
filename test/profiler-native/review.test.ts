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
  test('a set*id call from a signal handler during another one on the same thread does not wait for the join of the flush thread its own thread holds', async (t) => {
    const dir = tempDir();
    const work = join(dir, 'work');
    mkdirSync(work);
    // the program raises SIGUSR1 from inside the outer setgroups' join; its handler calls setgid
    const r = await runProfiled(testBin('t_review_setid'), [work], { dir, env: { JOBIO_FLUSH_THREAD: '1' } });
    if (r.status === 77) {
      removeDir(dir);
      return t.skip('not root: the program cannot change its credentials');
    }
    assert.equal(r.signal, null);
    assert.equal(r.status, 0, r.stderr.toString());
    // the nested call's time is bounded by the join's 2 s; the flush thread's own end is microseconds
    assert.equal(r.stdout.toString(), 'nested setgid in the join: returned at once\n', r.stderr.toString());
    removeDir(dir);
  });
  for (const every of ['1', String(2 ** 30)]) {
    test(`a seek on a dup alias is classified by the shared offset, moved by reads through the other descriptor too (JOBIO_SAMPLE_EVERY=${every})`, async () => {
      const dir = tempDir();
      const work = join(dir, 'work');
      mkdirSync(work);
      const r = await runProfiled(testBin('t_review_dupseek'), [work], { dir, env: { JOBIO_SAMPLE_EVERY: every } });
      assert.equal(r.status, 0, r.stderr.toString());
      const p = proc(r.dump, 't_review_dupseek');
      assert.deepEqual(counted(p.totals).seek, [4, 1, 0]);
      assert.equal(p.totals.reasons['backward_seek'], 3);
      assert.equal(p.totals.reasons['zero_seek'], 1);
      removeDir(dir);
    });
  }
  for (const every of ['1', String(2 ** 30)]) {
    test(`a sendto whose socket's descriptor number another thread gives to a file during the call counts on the address, never at the file's offset (JOBIO_SAMPLE_EVERY=${every})`, async (t) => {
      const dir = tempDir();
      const work = join(dir, 'work');
      mkdirSync(work);
      const r = await runProfiled(testBin('t_review_reuse'), [work, 'sendto'], { dir, env: { JOBIO_NETWORK: '1', JOBIO_SAMPLE_EVERY: every } });
      if (r.status === 77) {
        removeDir(dir);
        return t.skip('no /proc/self/task/TID/syscall: a thread waiting in sendto cannot be seen');
      }
      assert.equal(r.signal, null);
      assert.equal(r.status, 0, r.stderr.toString());
      assert.equal(r.stdout.toString(), `sent ${64 * 2 ** 20}\n`);
      const sent = proc(r.dump, 't_review_reuse').mounts.filter((m) => m.fstype === 'socket' && counted(m).write);
      // the byte, then the 64 MiB (the second sendto's socket replaced by a file meanwhile): both on 0.0.0.0
      assert.deepEqual(
        sent.map((m) => [m.path, counted(m).write, m.sizes.write.small.bytes + m.sizes.write.medium.bytes + m.sizes.write.large.bytes]),
        [['[network] 0.0.0.0', [0, 0, 2], 64 * 2 ** 20 + 1]],
      );
      removeDir(dir);
    });
  }
});
