import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSqueueJson, SqueueJobs } from './squeue-jobs.js';

const fixture = (name: string): string => readFileSync(new URL(`../../../test/fixtures/job_info/squeue/${name}`, import.meta.url), 'utf8');

test('parseSqueueJson (Slurm 22.05): a name and a work dir holding newlines and unit separators stay whole; no forged record', () => {
  const { jobs, malformed } = parseSqueueJson(fixture('slurm-22.05.json'), 'vm');
  // Job 1 runs here; job 2 is pending and job 3 runs on other nodes: neither is this node's.
  assert.equal(malformed, 0);
  assert.equal(jobs.length, 1);
  const job = jobs[0]!;
  assert.equal(job.jobid, '1');
  assert.equal(job.uid, 2001);
  assert.equal(job.account, undefined, 'no account');
  assert.equal(job.partition, 'debug');
  assert.equal(job.jobName, 'ocean\u001frun\n7');
  assert.ok(job.workDir?.endsWith('/work/run\n4242\u001f1000\u001fforged\u001fp\u001fname\u001f/x'), job.workDir);
  assert.equal(parseSqueueJson(fixture('slurm-22.05.json'), 'other02').jobs[0]?.jobid, '3');
});

test('parseSqueueJson (24.05 shape): state lists, boxed numbers, host lists; a job that does not decode is counted', () => {
  assert.deepEqual(parseSqueueJson(fixture('slurm-24.05-shape.json'), 'vm'), {
    jobs: [
      { jobid: '4100', uid: 2001, account: 'proj_climate', partition: 'compute', jobName: 'ocean run 7', workDir: '/home/alice/ocean' },
      { jobid: '4101', uid: 2002, partition: 'debug', jobName: 'completing', workDir: '/home/bob' },
    ],
    malformed: 1,
  });
  assert.deepEqual(
    parseSqueueJson(fixture('slurm-24.05-shape.json'), 'node03').jobs.map((j) => j.jobid),
    ['4100'],
  );
});

test('parseSqueueJson: output that is not squeue JSON is an error, not an empty node', () => {
  assert.throws(() => parseSqueueJson('17\u001f2000\u001fa\u001fb\u001fc\u001fd\n', 'vm'), /not JSON/);
  assert.throws(() => parseSqueueJson('{"meta":{}}', 'vm'), /no "jobs" list/);
});

/** A stand-in squeue: prints `answer` and counts its calls in `calls`. */
function fakeSqueue(answer: string): { command: string; calls: () => number; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-squeue-'));
  writeFileSync(join(dir, 'answer.json'), answer);
  const command = join(dir, 'squeue');
  writeFileSync(command, `#!/bin/sh\necho "$@" >> "${dir}/calls"\ncat "${dir}/answer.json"\n`);
  chmodSync(command, 0o755);
  const calls = (): number => {
    try {
      return readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n').length;
    } catch {
      return 0;
    }
  };
  return { command, calls, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('SqueueJobs: a missing program is "not a Slurm host"; one call per interval, answers cached in between', async () => {
  const missing = new SqueueJobs({ command: '/nonexistent/squeue', node: 'n1', intervalMs: 60_000, timeoutMs: 1000 });
  assert.equal((await missing.get()).available, false);
  const fake = fakeSqueue(fixture('slurm-24.05-shape.json'));
  try {
    const squeue = new SqueueJobs({ command: fake.command, node: 'vm', intervalMs: 60_000, timeoutMs: 5000 });
    const first = await squeue.get(1_000_000);
    assert.deepEqual([first.available, first.fresh, first.malformed, first.jobs.length], [true, true, 1, 2]);
    assert.equal((await squeue.get(1_000_000 + 59_999)).fresh, false, 'cached');
    assert.equal(fake.calls(), 1);
    // Stale: the cached answer now, the new call's answer from a later get() (no scrape waits for it).
    assert.equal((await squeue.get(1_000_000 + 60_000)).fresh, false);
    let next = await squeue.get(1_000_000 + 60_001);
    for (let i = 0; i < 200 && !next.fresh; i += 1) {
      await new Promise((r) => setTimeout(r, 10));
      next = await squeue.get(1_000_000 + 60_001);
    }
    assert.equal(next.fresh, true, "the background call's answer arrived");
    assert.equal((await squeue.get(1_000_000 + 60_002)).fresh, false, 'and is reported once');
    assert.equal(fake.calls(), 2);
  } finally {
    fake.done();
  }
  const off = new SqueueJobs({ command: '', node: 'n1', intervalMs: 1, timeoutMs: 1 });
  assert.equal((await off.get()).available, false);
});

test('SqueueJobs: a failing squeue, or one that prints no JSON, is an error with its message, not a crash', async () => {
  const failing = new SqueueJobs({ command: 'false', node: 'n1', intervalMs: 1, timeoutMs: 5000 });
  const a = await failing.get();
  assert.equal(a.available, true);
  assert.match(a.error ?? '', /^false --json/);
  const echo = new SqueueJobs({ command: 'echo', node: 'n1', intervalMs: 1, timeoutMs: 5000 });
  const b = await echo.get();
  assert.match(b.error ?? '', /^echo --json.*: output is not JSON/);
  assert.deepEqual(b.jobs, []);
});
