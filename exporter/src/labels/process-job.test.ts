// pid → job: cgroup and environ texts, cgroup first; owners from /proc/<pid>/status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJobId, cgroupJobIds, environJobId, jobOfProcess, processUid, readProcessJob } from './process-job.js';
import { fakeProc } from '../../../test/helpers/fake-proc.js';

test('job id from the scheduler variables of an environ block, first found wins', () => {
  assert.equal(environJobId('PATH=/bin\0SLURM_JOB_ID=4242\0HOME=/root\0'), '4242');
  assert.equal(environJobId('PBS_JOBID=77.server\0'), '77.server');
  assert.equal(environJobId('LSB_JOBID=12\0SLURM_JOB_ID=13\0'), '13'); // Slurm's variable is asked first
  assert.equal(environJobId('PATH=/bin\0'), undefined);
  assert.equal(environJobId('SLURM_JOB_ID=\0'), undefined);
  assert.equal(environJobId('SLURM_JOB_ID=a b\0'), undefined);
  assert.equal(environJobId('XSLURM_JOB_ID=1\0'), undefined);
});

test('job id from Slurm cgroup paths (v1 and v2)', () => {
  assert.deepEqual(cgroupJobIds('0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0\n'), ['123']);
  assert.deepEqual(cgroupJobIds('4:memory:/slurm/uid_1000/job_77/step_batch\n2:cpuacct:/slurm/uid_1000/job_77/step_batch\n'), ['77']);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1000.slice/session-1.scope\n'), []);
  assert.deepEqual(cgroupJobIds('0::/system.slice/job_abc\n'), []);
  assert.deepEqual(cgroupJobIds('0::/system.slice/node_job_1/x\n'), []);
});

test('job id from OpenPBS cgroups hook paths (pbs_jobs.service/jobid/<id>, v1 and v2), the full PBS id', () => {
  assert.deepEqual(cgroupJobIds('5:memory:/pbs_jobs.service/jobid/4242.pbsserver\n3:cpu,cpuacct:/pbs_jobs.service/jobid/4242.pbsserver\n'), ['4242.pbsserver']);
  assert.deepEqual(cgroupJobIds('0::/pbs_jobs.service/jobid/17.srv\n'), ['17.srv']);
  assert.deepEqual(cgroupJobIds('0::/pbs_jobs.service/17.srv\n'), [], "not the hook's layout");
  assert.deepEqual(cgroupJobIds('0::/system.slice/jobid/17.srv\n'), []);
  assert.deepEqual(cgroupJobIds('0::/pbs_jobs.service/jobid/a b\n'), []);
  assert.deepEqual(jobOfProcess({ cgroup: '0::/pbs_jobs.service/jobid/17.srv\n', environ: 'PBS_JOBID=18.srv\0' }), { jobid: '17.srv', source: 'cgroup' });
});

test('the cgroup outranks the environment: a process in job 888 that says SLURM_JOB_ID=999 is in 888', () => {
  const cgroup = '0::/system.slice/slurmstepd.scope/job_888/step_0/user/task_0\n';
  assert.deepEqual(jobOfProcess({ cgroup, environ: 'SLURM_JOB_ID=999\0' }), { jobid: '888', source: 'cgroup' });
  assert.deepEqual(jobOfProcess({ cgroup: '0::/user.slice\n', environ: 'SLURM_JOB_ID=999\0' }), { jobid: '999', source: 'environ' });
  assert.deepEqual(jobOfProcess({ environ: 'SLURM_JOB_ID=999\0' }), { jobid: '999', source: 'environ' });
  assert.equal(jobOfProcess({}), undefined);
});

test('readProcessJob and processUid read <procfs>/<pid>: the real uid from status, not the directory owner', async () => {
  const procfs = fakeProc({
    41: {
      status: 'Name:\tsim\nUid:\t1001\t0\t0\t0\nGid:\t100\t100\t100\t100\n',
      cgroup: '0::/system.slice/slurmstepd.scope/job_888/step_0/user/task_0\n',
      environ: 'SLURM_JOB_ID=999\0',
    },
  });
  try {
    assert.equal(await processUid(procfs, 41), 1001);
    assert.deepEqual(await readProcessJob(procfs, 41), { jobid: '888', source: 'cgroup', uid: 1001 });
    assert.equal(await readProcessJob(procfs, 42), undefined);
  } finally {
    rmSync(procfs, { recursive: true, force: true });
  }
});

test("job cgroups count only at the hierarchy root: a look-alike inside a user's own systemd manager names no job", () => {
  // Any user may create cgroups below their delegated user@<uid>.service and move their processes there.
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1001.slice/user@1001.service/job_999\n'), []);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1001.slice/user@1001.service/system.slice/slurmstepd.scope/job_999\n'), []);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1001.slice/user@1001.service/pbs_jobs.service/jobid/9.srv\n'), []);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1001.slice/user@1001.service/lsf/c1/job.9.0.1\n'), []);
  assert.deepEqual(cgroupJobIds('4:memory:/slurm_node01/uid_1000/job_12/step_0/task_0\n'), ['12']);
  assert.deepEqual(cgroupJobIds('0::/system.slice/node01_slurmstepd.scope/job_12/step_0/user/task_0\n'), ['12']);
  assert.deepEqual(cgroupJobIds('4:memory:/slurm/job_12\n'), [], 'no uid_<uid> level: not Slurm v1');
});

test('job id from LSF cgroup paths (lsf/<cluster>/job.<jobid>.<index>.<time>, v1 controllers and v2)', () => {
  assert.deepEqual(cgroupJobIds('9:freezer:/lsf/cluster1/job.31337.0.1763990000\n6:memory:/lsf/cluster1/job.31337.0.1763990000\n3:cpu,cpuacct:/lsf/cluster1/job.31337.0.1763990000\n'), ['31337']);
  assert.deepEqual(cgroupJobIds('0::/lsf/cluster1/job.4100.0.1763990200\n'), ['4100']);
  assert.deepEqual(cgroupJobIds('0::/lsf/cluster1/job.31340[2].2.1763990100\n'), ['31340[2]']);
  assert.deepEqual(cgroupJobIds('0::/lsf/cluster1/job.4100\n'), ['4100']);
  for (const bad of ['0::/lsf/job.4100.0.1\n', '0::/lsf/cluster1/jobs.4100\n', '0::/lsf/cluster1/job.abc.0.1\n', '0::/lsf/cluster1/job.\n', '0::/lsf/a b/job.1.0.1\n']) {
    assert.deepEqual(cgroupJobIds(bad), [], bad);
  }
  assert.deepEqual(jobOfProcess({ cgroup: '0::/lsf/cluster1/job.4100.0.1\n', environ: 'LSB_JOBID=4101\0' }), { jobid: '4100', source: 'cgroup' });
});

test("job id from Flux sdexec units: only for a process of another uid than the unit's systemd manager", () => {
  const unit = '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n';
  assert.deepEqual(cgroupJobIds(unit, 1000), ['fiFkbMhFM']);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-500.slice/user@500.service/app.slice/shell-3-fiHP9Htes.service\n', 1001), ['fiHP9Htes']);
  assert.deepEqual(cgroupJobIds(unit, 500), [], "the manager's own process (or a user's look-alike unit) proves nothing");
  assert.deepEqual(cgroupJobIds(unit), [], 'no uid, no proof');
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-500.slice/user@501.service/imp-shell-0-fiFkbMhFM.service\n', 1000), []);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-500.slice/user@500.service/imp-shell-x-fiFkbMhFM.service\n', 1000), []);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-500.slice/user@500.service/imp-shell-0-f0OIl.service\n', 1000), []);
  assert.deepEqual(cgroupJobIds('0::/system.slice/imp-shell-0-fiFkbMhFM.service\n', 1000), []);
  assert.deepEqual(
    cgroupJobIds('0::/user.slice/user-1001.slice/user@1001.service/imp-shell-0-fiFkbMhFM.service\n', 1000),
    [],
    "Flux runs as a system account: an ordinary user's manager is never Flux's",
  );
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-999.slice/user@999.service/imp-shell-0-fiFkbMhFM.service\n', 1000), ['fiFkbMhFM']);
});

test('a Flux job in both encodings: FLUX_JOB_ID as ƒ-F58 or decimal names the job its unit cgroup names', () => {
  assert.equal(environJobId('FLUX_JOB_ID=ƒiFkbMhFM\0'), 'fiFkbMhFM');
  assert.equal(environJobId(Buffer.from('FLUX_JOB_ID=91088924704768\0')), 'fiFkbMhFM');
  assert.equal(environJobId('FLUX_JOB_ID=fiFkbMhFM\0'), 'fiFkbMhFM');
  assert.equal(environJobId('FLUX_JOB_ID=ƒnot-f58\0'), undefined);
  assert.equal(environJobId('LSB_JOBID=91088924704768\0'), '91088924704768', 'only Flux ids are respelled');
  assert.equal(canonicalJobId('FLUX_JOB_ID', 'ƒiFkbMhFM'), 'fiFkbMhFM');
  assert.equal(canonicalJobId('SLURM_JOB_ID', 'ƒiFkbMhFM'), undefined);
  const cgroup = '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n';
  assert.deepEqual(jobOfProcess({ cgroup, environ: 'FLUX_JOB_ID=ƒiFkbMhFM\0', uid: 1000 }), { jobid: 'fiFkbMhFM', source: 'cgroup' });
  assert.deepEqual(jobOfProcess({ cgroup: '0::/user.slice/user-1000.slice/session-3.scope\n', environ: 'FLUX_JOB_ID=91088924704768\0', uid: 1000 }), { jobid: 'fiFkbMhFM', source: 'environ' });
});

test('readProcessJob reads the environment as UTF-8 bytes (ƒ) and gives the Flux resolver the real uid', async () => {
  const procfs = fakeProc({
    51: {
      uid: 1000,
      cgroup: '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n',
      environ: Buffer.from('FLUX_JOB_ID=ƒiHP9Htes\0', 'utf8'),
    },
  });
  try {
    assert.deepEqual(await readProcessJob(procfs, 51), { jobid: 'fiFkbMhFM', source: 'cgroup', uid: 1000 });
    writeFileSync(join(procfs, '51/cgroup'), '0::/user.slice/user-1000.slice/session-3.scope\n');
    assert.deepEqual(await readProcessJob(procfs, 51), { jobid: 'fiHP9Htes', source: 'environ', uid: 1000 });
  } finally {
    rmSync(procfs, { recursive: true, force: true });
  }
});
