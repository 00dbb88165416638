// The fast paths of the profiler (native/profiler/src/hot.h): stratified duration sampling, the
// size-bin table with thresholds that are not powers of two, lseek offsets tracked without system
// calls, and the start-up PROCESS frame that lets the receiver meet a process while it is alive.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, counted, proc, removeDir, runProfiled, tempDir, testBin, type ProfiledResult } from './harness.js';

async function profiled(prog: string, args: string[] = [], env: Record<string, string | undefined> = {}): Promise<ProfiledResult> {
  const dir = tempDir();
  const work = join(dir, 'work');
  mkdirSync(work);
  return runProfiled(testBin(prog), [work, ...args], { dir, env });
}

before(() => buildTests());

describe('hot path', () => {
  test('sampling: N consecutive calls with JOBIO_SAMPLE_EVERY=n time within 2 of N/n (one per stratum, two cut strata at the ends)', async () => {
    const n = 4000;
    for (const every of [4, 7, 16]) {
      const r = await profiled('t_sample', [String(n), '4096'], { JOBIO_SAMPLE_EVERY: String(every) });
      assert.equal(r.status, 0, r.stderr.toString());
      const p = proc(r.dump, 't_sample');
      assert.equal(p.sample_every, every);
      const read = p.totals.calls.read!;
      assert.equal(read.red + read.yellow + read.green, n);
      // the N preads are N consecutive counted calls of the thread: whole strata inside the run
      // time exactly one call each, the two cut strata at its ends at most one each. The run starts
      // wherever the thread's earlier calls (the open) left the stratum, so it holds floor(N/n) or
      // floor(N/n) - 1 whole strata: the count is within 2 of N/n (570 of 571.4 for n = 7 happens
      // when both cut strata draw a call outside the run, about 1 run in 16)
      assert.ok(Math.abs(read.sampled - n / every) < 2, `every ${every}: sampled ${read.sampled}`);
      assert.ok(read.time_ns[0] > 0, 'sampled durations are scaled into the red time');
      removeDir(r.dir);
    }
    const all = await profiled('t_sample', [String(n), '4096'], { JOBIO_SAMPLE_EVERY: '1' });
    assert.equal(proc(all.dump, 't_sample').totals.calls.read!.sampled, n);
    removeDir(all.dir);
  });

  test('size bins: a small threshold inside a power-of-two bin is still compared exactly', async () => {
    // threshold 3000 lies inside [2048, 4096): 2999 bytes are small (red), 3000 are green
    for (const [size, cls] of [
      [2999, 'red'],
      [3000, 'green'],
      [4096, 'green'],
      [2048, 'red'],
    ] as const) {
      const r = await profiled('t_sample', ['100', String(size)], { JOBIO_SMALL_THRESHOLD: '3000', JOBIO_SAMPLE_EVERY: '3' });
      assert.equal(r.status, 0, r.stderr.toString());
      const p = proc(r.dump, 't_sample');
      const read = p.totals.calls.read!;
      assert.deepEqual([read.red, read.green], cls === 'red' ? [100, 0] : [0, 100], `size ${size}`);
      const sizes = p.totals.sizes.read;
      assert.deepEqual(cls === 'red' ? [sizes.small.calls, sizes.small.bytes] : [sizes.medium.calls, sizes.medium.bytes], [100, 100 * size]);
      // pow2 entries are [bin, calls, bytes]; bin k holds [2^(k-1), 2^k)
      assert.deepEqual(p.totals.pow2.read, [[Math.floor(Math.log2(size)) + 1, 100, 100 * size]]);
      removeDir(r.dir);
    }
  });

  test('start-up frame: a process killed before any flush was still met by the receiver, with its job id', async () => {
    const r = await profiled('t_hello', ['fork'], { SLURM_JOB_ID: '4242' });
    assert.equal(r.signal, 'SIGKILL');
    const procs = r.dump.processes.filter((p) => p.exe === 't_hello');
    assert.equal(procs.length, 2, 'the parent and the forked child each sent their start-up frame');
    for (const p of procs) {
      assert.equal(p.final, false);
      assert.equal(p.mount_count, 0);
      assert.equal(p.jobid, '4242');
      assert.equal(p.jobid_source, 'SLURM_JOB_ID');
      assert.deepEqual(counted(p.totals), {});
    }
    // no listener: the start-up frame is dropped (and counted), the program is unaffected
    const dir = tempDir();
    const noListener = await runProfiled(testBin('t_sample'), [dir, '10', '16'], { dir, env: { JOBIO_SOCKET: join(dir, 'nobody.sock') } });
    assert.equal(noListener.status, 0);
    removeDir(dir);
    removeDir(r.dir);
  });
});
