// pid → job from /proc/<pid>/environ and /proc/<pid>/cgroup text, with malformed cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobFromCgroup, jobFromEnviron } from './gpu-process-jobs.js';

test('SLURM_JOB_ID from environ', () => {
  assert.equal(jobFromEnviron('PATH=/bin\0SLURM_JOB_ID=4242\0HOME=/root\0'), '4242');
  assert.equal(jobFromEnviron('PATH=/bin\0'), undefined);
  assert.equal(jobFromEnviron('SLURM_JOB_ID=\0'), undefined);
  assert.equal(jobFromEnviron('SLURM_JOB_ID=a b\0'), undefined);
  assert.equal(jobFromEnviron('XSLURM_JOB_ID=1\0'), undefined);
});

test('job id from Slurm cgroup paths (v1 and v2)', () => {
  assert.equal(jobFromCgroup('0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0\n'), '123');
  assert.equal(jobFromCgroup('4:memory:/slurm/uid_1000/job_77/step_batch\n2:cpuacct:/slurm/uid_1000/job_77/step_batch\n'), '77');
  assert.equal(jobFromCgroup('0::/user.slice/user-1000.slice/session-1.scope\n'), undefined);
  assert.equal(jobFromCgroup('0::/system.slice/job_abc\n'), undefined);
});
