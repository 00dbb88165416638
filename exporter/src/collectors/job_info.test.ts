import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { silentLogger } from '../util/logger.js';
import { EndedJobs, jobInfoCollector, mergeJobs } from './job_info.js';

/** Resolves once `path` exists (the test's own timeout catches a file that never comes). */
async function fileAppears(path: string): Promise<string> {
  while (!existsSync(path)) await sleep(20);
  return readFileSync(path, 'utf8');
}

test('job_info: the scrape deadline stops the update and kills the squeue it waits for; the next scrape reports the killed call', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-job-info-'));
  try {
    // A squeue that never answers (slurmctld down), noting when it starts and when it is terminated.
    const squeue = join(dir, 'squeue');
    writeFileSync(squeue, `#!/bin/sh\nsleep 3600 &\nchild=$!\ntrap 'kill $child; echo terminated > "$0.end"; exit 143' TERM\necho $$ > "$0.start"\nwait\n`);
    chmodSync(squeue, 0o755);
    // No spool under this rootfs: squeue is the only source.
    const collector = jobInfoCollector.create({
      registry: new MetricRegistry(),
      paths: { procfs: '/proc', sysfs: '/sys', rootfs: dir },
      options: { squeue, 'squeue-timeout': '1h', node: 'n1', getent: false },
      logger: silentLogger(),
    });
    const deadline = new AbortController();
    const update = collector.update(deadline.signal);
    await fileAppears(`${squeue}.start`);
    deadline.abort();
    await assert.rejects(update, { name: 'AbortError' });
    assert.equal(await fileAppears(`${squeue}.end`), 'terminated\n', 'squeue got SIGTERM at the deadline, not after its own hour');
    // The killed call is the cached answer (no second call within squeue-interval): with no spool
    // either, no scheduler answers on this host: absent (quiet), and the startup line says why.
    assert.equal(await collector.update(new AbortController().signal), 'absent');
    const why = collector.describe?.().why ?? '';
    assert.equal(why, `no job spool at ${join(dir, 'run/jobio/jobs')} and ${squeue} failed: stopped at the scrape deadline`);
  } finally {
    // Had the deadline not reached squeue, it would outlive the test: end it (its trap ends its sleep).
    const started = join(dir, 'squeue.start');
    if (existsSync(started) && !existsSync(join(dir, 'squeue.end'))) process.kill(Number(readFileSync(started, 'utf8')), 'SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('mergeJobs: the spool wins for every field it has, an empty one included; squeue fills the rest', () => {
  const spool = [{ jobid: '7', uid: 2001, account: '', partition: 'debug' }];
  const squeue = [
    { jobid: '7', uid: 666, account: 'forged', partition: 'other', jobName: 'run', workDir: '/home/a' },
    { jobid: '8', uid: 2002, jobName: 'only in squeue' },
  ];
  assert.deepEqual(mergeJobs(spool, squeue), [
    { jobid: '7', uid: 2001, account: '', partition: 'debug', jobName: 'run', workDir: '/home/a' },
    { jobid: '8', uid: 2002, jobName: 'only in squeue' },
  ]);
});

test('EndedJobs: the epilog removing a job file ends the job at once, whatever the cached squeue answer still says', () => {
  const ended = new EndedJobs();
  const job = (jobid: string) => ({ jobid, uid: 2001 });
  const ids = (jobs: readonly { jobid: string }[]) => jobs.map((j) => j.jobid);
  // Both jobs in the spool and in squeue's answer.
  assert.deepEqual(ids(ended.filter({ exists: true, jobs: [job('7'), job('8')] }, { fresh: true, jobs: [job('7'), job('8')] })), ['7', '8']);
  // The epilog removed 7's file; squeue's answer is the cached one (not fresh) and still lists 7: ended.
  assert.deepEqual(ids(ended.filter({ exists: true, jobs: [job('8')] }, { fresh: false, jobs: [job('7'), job('8')] })), ['8']);
  // A fresh answer may still list it for a moment (slurmctld learns of the end later): still ended.
  assert.deepEqual(ids(ended.filter({ exists: true, jobs: [job('8')] }, { fresh: true, jobs: [job('7'), job('8')] })), ['8']);
  // Gone from a fresh answer: forgotten; a job squeue alone lists (no file yet) is kept.
  assert.deepEqual(ids(ended.filter({ exists: true, jobs: [job('8')] }, { fresh: true, jobs: [job('8'), job('9')] })), ['8', '9']);
  // A requeued 7 whose prolog writes its file again runs again, even if squeue lists it.
  ended.filter({ exists: true, jobs: [] }, { fresh: false, jobs: [job('7')] });
  assert.deepEqual(ids(ended.filter({ exists: true, jobs: [job('7')] }, { fresh: false, jobs: [job('7')] })), ['7']);
  // Without a spool at all (squeue only), nothing is ever ended by it.
  const squeueOnly = new EndedJobs();
  assert.deepEqual(ids(squeueOnly.filter({ exists: false, jobs: [] }, { fresh: false, jobs: [job('5')] })), ['5']);
});
