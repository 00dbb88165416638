import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJobFile, readJobSpool } from './job-spool.js';

const asRoot = process.getuid?.() === 0;

function spool(): { dir: string; done: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'jobio-spool-'));
  const dir = join(base, 'jobs');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  return { dir, done: () => rmSync(base, { recursive: true, force: true }) };
}

test("parseJobFile: the prolog's fields; a value keeps its spaces and = signs; a bad uid is left out", () => {
  assert.deepEqual(parseJobFile('42', 'uid=2000\naccount=proj1\npartition=debug\njob_name=my run=2\nwork_dir=/home/a b\nfuture=x\n'), {
    jobid: '42',
    uid: 2000,
    account: 'proj1',
    partition: 'debug',
    jobName: 'my run=2',
    workDir: '/home/a b',
  });
  // A field the prolog wrote empty (a job without an account) is an empty value, not a missing one:
  // it wins over what squeue says (job_info.ts, mergeJobs).
  assert.deepEqual(parseJobFile('43', 'uid=-1\naccount=\n'), { jobid: '43', account: '' });
});

test('readJobSpool: a missing spool is "not here", not an error', async () => {
  const r = await readJobSpool('/nonexistent/jobio/jobs');
  assert.equal(r.exists, false);
  assert.equal(r.jobs.length, 0);
});

test('readJobSpool: only root-written job files are believed; each other entry is counted by reason', { skip: asRoot ? false : 'needs root to make root-owned and user-owned files' }, async () => {
  const { dir, done } = spool();
  try {
    writeFileSync(join(dir, '100'), 'uid=2000\naccount=proj1\n', { mode: 0o644 });
    writeFileSync(join(dir, '101'), 'uid=0\naccount=forged\n', { mode: 0o644 });
    chownSync(join(dir, '101'), 2000, 2000); // a user's file: not trusted
    writeFileSync(join(dir, '102'), 'uid=2000\n', { mode: 0o666 });
    chmodSync(join(dir, '102'), 0o666); // root's, but anyone may have rewritten it
    symlinkSync(join(dir, '100'), join(dir, '103')); // a link to a trusted file is still not a job file
    writeFileSync(join(dir, '104'), `uid=1\njob_name=${'x'.repeat(9000)}\n`, { mode: 0o644 });
    writeFileSync(join(dir, 'bad name'), 'uid=1\n', { mode: 0o644 });
    writeFileSync(join(dir, '.105.tmp'), 'uid=1\n', { mode: 0o644 }); // a prolog's file before its rename: skipped silently
    const r = await readJobSpool(dir);
    assert.equal(r.exists, true);
    assert.deepEqual(r.jobs, [{ jobid: '100', uid: 2000, account: 'proj1' }]);
    assert.deepEqual(Object.fromEntries(r.rejected), { untrusted_file: 3, too_big: 1, bad_name: 1 });
  } finally {
    done();
  }
});

test('readJobSpool: a spool directory that a user could write into is not read at all', { skip: asRoot ? false : 'needs root' }, async () => {
  const { dir, done } = spool();
  try {
    writeFileSync(join(dir, '100'), 'uid=2000\n', { mode: 0o644 });
    chmodSync(dir, 0o777);
    let r = await readJobSpool(dir);
    assert.deepEqual([r.exists, r.jobs.length, Object.fromEntries(r.rejected)], [true, 0, { untrusted_dir: 1 }]);
    chmodSync(dir, 0o755);
    chownSync(dir, 2000, 2000);
    r = await readJobSpool(dir);
    assert.deepEqual([r.jobs.length, Object.fromEntries(r.rejected)], [0, { untrusted_dir: 1 }]);
  } finally {
    done();
  }
});
