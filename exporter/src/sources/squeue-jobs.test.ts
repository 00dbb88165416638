import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSqueue, SqueueJobs } from './squeue-jobs.js';

const S = '\x1f';

test('parseSqueue: six fields per job; names with spaces and | stay whole; (null) account is unset; bad lines counted', () => {
  const text = [`17${S}2000${S}proj1${S}debug${S}my | run${S}/home/a b`, `18${S}2001${S}(null)${S}gpu${S}x${S}/tmp`, `19${S}notuid${S}a${S}b${S}c${S}d`, `20${S}1`, ''].join('\n');
  assert.deepEqual(parseSqueue(text), {
    jobs: [
      { jobid: '17', uid: 2000, account: 'proj1', partition: 'debug', jobName: 'my | run', workDir: '/home/a b' },
      { jobid: '18', uid: 2001, partition: 'gpu', jobName: 'x', workDir: '/tmp' },
    ],
    malformed: 2,
  });
});

test('SqueueJobs: a missing program is "not a Slurm host"; one call per interval, answers cached in between', async () => {
  const missing = new SqueueJobs({ command: '/nonexistent/squeue', node: 'n1', intervalMs: 60_000, timeoutMs: 1000 });
  assert.equal((await missing.get()).available, false);
  // `echo` stands in for squeue only to count calls: it prints its arguments, one "line" that does not parse.
  const echo = new SqueueJobs({ command: 'echo', node: 'n1', intervalMs: 60_000, timeoutMs: 5000 });
  const first = await echo.get(1_000_000);
  assert.deepEqual([first.available, first.fresh, first.malformed], [true, true, 1]);
  assert.equal((await echo.get(1_000_000 + 59_999)).fresh, false, 'cached');
  // Stale: the cached answer now, the new call's answer from a later get() (no scrape waits for it).
  assert.equal((await echo.get(1_000_000 + 60_000)).fresh, false);
  let next = await echo.get(1_000_000 + 60_001);
  for (let i = 0; i < 200 && !next.fresh; i += 1) {
    await new Promise((r) => setTimeout(r, 10));
    next = await echo.get(1_000_000 + 60_001);
  }
  assert.equal(next.fresh, true, "the background call's answer arrived");
  assert.equal((await echo.get(1_000_000 + 60_002)).fresh, false, 'and is reported once');
  const off = new SqueueJobs({ command: '', node: 'n1', intervalMs: 1, timeoutMs: 1 });
  assert.equal((await off.get()).available, false);
});

test('SqueueJobs: a failing squeue is an error with its message, not a crash', async () => {
  const failing = new SqueueJobs({ command: 'false', node: 'n1', intervalMs: 1, timeoutMs: 5000 });
  const a = await failing.get();
  assert.equal(a.available, true);
  assert.match(a.error ?? '', /^false -h -t running -w n1/);
});
