// The OpenPBS / PBS Pro hook (provisioning/pbs/jobio-hook.py) replayed against recorded hook events:
// no PBS on the test machine, so a stand-in `pbs` module (test/fixtures/pbs/pbs.py) hands the hook
// one event of test/fixtures/pbs/events/ and records what it left: accept or reject, and the job's
// Variable_List (the environment the job will run with). The hook runs as root, as pbs_mom runs it;
// the built exporter's job_info collector reads the files it wrote.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { requireProfilerLibrary } from '../profiler/real-library.js';
import { hooksNeedRoot, hostRoot, jobInfo } from './hook-host.js';

const skip = hooksNeedRoot;
const fixtures = join(repoRoot, 'test/fixtures/pbs');
const library = requireProfilerLibrary();
const work = mkdtempSync(join(tmpdir(), 'jobio-pbs-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Outcome {
  accepted: boolean;
  message: string;
  Variable_List: Record<string, string>;
}

/** The recorded job's own Variable_List, before any hook ran. */
function recorded(event: string): Record<string, string> {
  return (JSON.parse(readFileSync(join(fixtures, 'events', `${event}.json`), 'utf8')) as { job: { Variable_List: Record<string, string> } }).job.Variable_List;
}

/** Runs the hook on one recorded event with `settings` as its configuration file. */
function replay(event: string, settings: Record<string, unknown>): { outcome: Outcome; log: string } {
  const config = join(work, 'jobio-hook.json');
  const outcome = join(work, 'outcome.json');
  const log = join(work, 'hook.log');
  writeFileSync(config, JSON.stringify(settings));
  for (const file of [outcome, log]) rmSync(file, { force: true });
  execFileSync('python3', ['-B', join(repoRoot, 'provisioning/pbs/jobio-hook.py')], {
    env: {
      PATH: '/usr/bin:/bin',
      PYTHONPATH: fixtures,
      JOBIO_PBS_EVENT: join(fixtures, 'events', `${event}.json`),
      JOBIO_PBS_CONFIG: config,
      JOBIO_PBS_OUTCOME: outcome,
      JOBIO_PBS_LOG: log,
    },
    stdio: 'pipe',
    timeout: 20_000,
  });
  return { outcome: JSON.parse(readFileSync(outcome, 'utf8')) as Outcome, log: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

const accepted = (variables: Record<string, string>): Outcome => ({ accepted: true, message: '', Variable_List: variables });

test('execjob_begin: the job file under the full job id, read by job_info; the job profiled; execjob_end removes it', { skip }, async () => {
  const { rootfs, spool } = hostRoot();
  try {
    const settings = { spool, library, socket: '/srv/jobio.sock' };
    assert.deepEqual(replay('execjob_begin-4242', settings), {
      outcome: accepted({ ...recorded('execjob_begin-4242'), JOBIO_PROFILE: '1', LD_PRELOAD: library, JOBIO_SOCKET: '/srv/jobio.sock' }),
      log: '',
    });
    const file = join(spool, '4242.pbsserver');
    assert.equal(readFileSync(file, 'utf8'), 'uid=65534\naccount=proj_climate\npartition=workq\njob_name=ocean run 7\nwork_dir=/home/alice/ocean\n');
    assert.deepEqual([statSync(file).uid, statSync(file).mode & 0o777, statSync(spool).uid, statSync(spool).mode & 0o777], [0, 0o644, 0, 0o755]);
    assert.deepEqual(await jobInfo(rootfs), ['jobio_job_info{jobid="4242.pbsserver",user="nobody",account="proj_climate",partition="workq",job_name="ocean run 7",work_dir="/home/alice/ocean"} 1']);
    assert.deepEqual(replay('execjob_end-4242', settings), { outcome: accepted(recorded('execjob_end-4242')), log: '' });
    assert.deepEqual(readdirSync(spool), []);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});

test('array subjobs: one file per subjob (4300[2].pbsserver, as PBS_JOBID names it); the end of one leaves the other', { skip }, async () => {
  const { rootfs, spool } = hostRoot();
  try {
    const settings = { spool, library };
    for (const index of [2, 3]) {
      const { outcome } = replay(`execjob_begin-4300[${index}]`, settings);
      assert.equal(outcome.accepted, true);
      assert.equal(outcome.Variable_List.JOBIO_SOCKET, '/run/jobio/profiler.sock', 'the default socket');
    }
    assert.deepEqual(readdirSync(spool).sort(), ['4300[2].pbsserver', '4300[3].pbsserver']);
    // No Account_Name: the job's project is the account.
    assert.equal(readFileSync(join(spool, '4300[2].pbsserver'), 'utf8'), 'uid=65534\naccount=climate_sweeps\npartition=workq\njob_name=sweep\nwork_dir=/home/alice/sweep\n');
    const line = (index: number): string => `jobio_job_info{jobid="4300[${index}].pbsserver",user="nobody",account="climate_sweeps",partition="workq",job_name="sweep",work_dir="/home/alice/sweep"} 1`;
    assert.deepEqual(await jobInfo(rootfs), [line(2), line(3)]);
    replay('execjob_end-4300[2]', settings);
    assert.deepEqual(readdirSync(spool), ['4300[3].pbsserver']);
    assert.deepEqual(await jobInfo(rootfs), [line(3)]);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});

test("opt-out and opt-in: the job's JOBIO_PROFILE, the queue lists, an excluded queue whatever the job asks", { skip }, () => {
  const { rootfs, spool } = hostRoot();
  try {
    const off = (event: string): Outcome => accepted({ ...recorded(event), JOBIO_PROFILE: '0' });
    // qsub -v JOBIO_PROFILE=0 in a profiled queue: not profiled, and the job's metadata still written.
    assert.deepEqual(replay('execjob_begin-4250-opt-out', { spool, library }).outcome, off('execjob_begin-4250-opt-out'));
    assert.equal(readFileSync(join(spool, '4250.pbsserver'), 'utf8'), 'uid=65534\naccount=\npartition=workq\njob_name=quiet run\nwork_dir=/home/alice\n', "PBS's default project is no account");
    // Only workq profiled: a workq job is, a debug job only on its own JOBIO_PROFILE=1, its LD_PRELOAD kept after the profiler.
    assert.equal(replay('execjob_begin-4242', { spool, library, queues: 'workq' }).outcome.Variable_List.JOBIO_PROFILE, '1');
    assert.equal(replay('execjob_begin-4242', { spool, library, queues: ['debug'] }).outcome.Variable_List.JOBIO_PROFILE, '0');
    assert.deepEqual(
      replay('execjob_begin-4251-opt-in', { spool, library, queues: ['workq'] }).outcome,
      accepted({
        ...recorded('execjob_begin-4251-opt-in'),
        JOBIO_PROFILE: '1',
        LD_PRELOAD: `${library}:/opt/site/libfoo.so`,
        JOBIO_SOCKET: '/run/jobio/profiler.sock',
      }),
    );
    assert.deepEqual(replay('execjob_begin-4251-opt-in', { spool, library, exclude_queues: 'debug' }).outcome, off('execjob_begin-4251-opt-in'));
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});

test('never holds a job back: a malformed job id writes nothing, a missing library leaves the job unprofiled; both logged, both accepted', { skip }, () => {
  const { rootfs, spool } = hostRoot();
  try {
    assert.deepEqual(replay('execjob_begin-bad-id', { spool, library }), {
      outcome: accepted(recorded('execjob_begin-bad-id')),
      log: "warning jobio: job id '../../etc/x' names no file; ignored\n",
    });
    assert.equal(existsSync(spool), false);
    const missing = join(work, 'missing.so');
    assert.deepEqual(replay('execjob_begin-4242', { spool, library: missing }), {
      outcome: accepted({ ...recorded('execjob_begin-4242'), JOBIO_PROFILE: '0' }),
      log: 'warning jobio: profiler library not found (library in the hook configuration); job 4242.pbsserver is not profiled\n',
    });
    assert.deepEqual(readdirSync(spool), ['4242.pbsserver']);
  } finally {
    rmSync(rootfs, { recursive: true, force: true });
  }
});
