// The calls made (wire version 4) and their estimated time (version 5): each MOUNT frame counts every
// call as it is made, beside its class, which for an open is decided at its close and for a stat
// when its path is opened or the process ends. At a normal exit every call made has been decided, so
// per mount and call type the two agree exactly, calls, time and timed calls; this holds them to it
// on the C family programs (opens kept open to the exit, stats of paths opened later and never,
// failed calls, fstat, creates, dup aliases) and on python3, with every call timed and with the
// default sampling. The time only with every call timed: a snapshot reports an estimate bounded by the
// threads' lifetimes (docs/profiler.md "The time estimate and its bound"), and one timed call of a
// short process, weighted 16, may exceed it; what is held back is shared in proportion as it is
// released, so made and decided agree exactly only where nothing is held back at the exit.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildTests, removeDir, runProfiled, tempDir, testBin, type DumpMount } from './harness.js';

before(() => buildTests());

const madeOf = (m: DumpMount): Record<string, number> => m.made;

/** Per call type, the classes' sum (non-zero only). */
function decidedOf(m: DumpMount): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [call, c] of Object.entries(m.calls)) if (c.red + c.yellow + c.green > 0) out[call] = c.red + c.yellow + c.green;
  return out;
}

/** Per call type, the classes' time summed and the timed calls (non-zero only), as the dump gives the made ones. */
function decidedTimeOf(m: DumpMount): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (const [call, c] of Object.entries(m.calls)) {
    const ns = c.time_ns[0] + c.time_ns[1] + c.time_ns[2];
    if (ns > 0 || c.sampled > 0) out[call] = [ns, c.sampled];
  }
  return out;
}

async function assertAllDecided(cmd: string, args: (work: string) => string[], setup: (work: string) => void = () => {}): Promise<void> {
  // every call timed, then the default sampling (1 in 16)
  for (const every of ['1', undefined]) {
    const dir = tempDir();
    try {
      const work = join(dir, 'work');
      mkdirSync(work);
      setup(work);
      const r = await runProfiled(cmd, args(work), { dir, env: { JOBIO_SAMPLE_EVERY: every } });
      assert.equal(r.status, 0, r.stderr.toString());
      const mounts = r.dump.processes.filter((p) => p.final).flatMap((p) => p.mounts);
      assert.ok(mounts.length > 0, 'frames received');
      let opensAndStats = 0;
      let timedOpensAndStats = 0;
      for (const m of mounts) {
        const where = `${cmd} on ${m.path} [${m.component}], JOBIO_SAMPLE_EVERY=${every ?? 'default'}`;
        assert.deepEqual(madeOf(m), decidedOf(m), where);
        const timed = (t: Record<string, [number, number]>): Record<string, number> => Object.fromEntries(Object.entries(t).map(([call, [, n]]) => [call, n]));
        if (every === '1') assert.deepEqual(m.made_time, decidedTimeOf(m), `time: ${where}`);
        else assert.deepEqual(timed(m.made_time), timed(decidedTimeOf(m)), `timed calls: ${where}`);
        opensAndStats += (madeOf(m)['open'] ?? 0) + (madeOf(m)['access'] ?? 0);
        timedOpensAndStats += (m.made_time['open']?.[1] ?? 0) + (m.made_time['access']?.[1] ?? 0);
      }
      assert.ok(opensAndStats > 0, `${cmd} made opens and stats`);
      // (most, not all: python3 had 4 of its 531 untimed even so, which the time check above allows)
      if (every === '1') assert.ok(timedOpensAndStats > opensAndStats / 2, `${cmd}: ${timedOpensAndStats} of ${opensAndStats} opens and stats timed`);
    } finally {
      removeDir(dir);
    }
  }
}

/** The C family programs and the files each expects (as families.test.ts gives them). */
const PROGRAMS: Record<string, Record<string, number>> = {
  t_open: {},
  t_dup: {},
  t_stat: { a: 100, b: 10, c: 10 },
  t_xstat: { a: 100, b: 10 },
  t_mix: { input: 70000, settings: 10 },
  // the same path stat'ed in the journal component's slot and in the program's
  t_stat_slots: { 'a-journal': 10, 'b-journal': 10 },
};

for (const [prog, files] of Object.entries(PROGRAMS)) {
  test(`${prog}: at the exit, the calls made per mount and call type are the decided ones`, async () => {
    await assertAllDecided(
      testBin(prog),
      (work) => [work],
      (work) => {
        for (const [name, size] of Object.entries(files)) writeFileSync(join(work, name), 'x'.repeat(size));
      },
    );
  });
}

test('python3 opening, reading and stat-ing files: the calls made are the decided ones', async () => {
  const script =
    "import os, sys\nd = sys.argv[1]\nkept = open(os.path.join(d, 'a'))\nfor n in ('a', 'b', 'c'):\n    os.stat(os.path.join(d, n))\nwith open(os.path.join(d, 'b')) as f:\n    f.read()\n";
  await assertAllDecided(
    'python3',
    (work) => ['-I', '-S', '-c', script, work],
    (work) => {
      for (const n of ['a', 'b', 'c']) writeFileSync(join(work, n), 'x'.repeat(100));
    },
  );
});
