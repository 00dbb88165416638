// pid → job: cgroup and environ texts, cgroup first; owners from /proc/<pid>/status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cgroupJobIds, environJobId, jobOfProcess, processUid, readProcessJob } from './process-job.js';

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
  assert.deepEqual(cgroupJobIds('0::/pbs_jobs.service/17.srv\n'), [], 'not the hook\'s layout');
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
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-proc-'));
  try {
    mkdirSync(join(procfs, '41'));
    writeFileSync(join(procfs, '41/status'), 'Name:\tsim\nUid:\t1001\t0\t0\t0\nGid:\t100\t100\t100\t100\n');
    writeFileSync(join(procfs, '41/cgroup'), '0::/system.slice/slurmstepd.scope/job_888/step_0/user/task_0\n');
    writeFileSync(join(procfs, '41/environ'), 'SLURM_JOB_ID=999\0');
    assert.equal(await processUid(procfs, 41), 1001);
    assert.deepEqual(await readProcessJob(procfs, 41), { jobid: '888', source: 'cgroup', uid: 1001 });
    assert.equal(await readProcessJob(procfs, 42), undefined);
  } finally {
    rmSync(procfs, { recursive: true, force: true });
  }
});
