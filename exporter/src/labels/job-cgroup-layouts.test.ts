import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLUX_OWNER_UID_MAX, JOB_CGROUP_PATH_PATTERNS, layoutJobId } from './job-cgroup-layouts.js';

/** The patterns' rule as the receiver addon applies it: some pattern matches, and its first group (a manager's uid), if any, is not the peer's. */
function patternsSayJob(path: string, uid: number): boolean {
  return JOB_CGROUP_PATH_PATTERNS.some((source) => {
    const m = new RegExp(source).exec(path);
    return m !== null && (m[1] === undefined || Number(m[1]) !== uid);
  });
}

const PATHS: readonly string[] = [
  '/slurm/uid_1000/job_42/step_0/task_0',
  '/slurm_node1/uid_1000/job_42',
  '/slurm/uid_1000/job_42x/step_0',
  '/slurm/job_42/step_0',
  '/user.slice/user-1000.slice/user@1000.service/slurm/uid_1000/job_42',
  '/system.slice/slurmstepd.scope/job_7/step_batch/user/task_0',
  '/system.slice/node2_slurmstepd.scope/job_7',
  '/system.slice/slurmstepd.scope/job_/step_0',
  '/system.slice/slurmd.service',
  '/pbs_jobs.service/jobid/13.server/tasks',
  '/pbs_jobs.service/jobid/13 server',
  '/lsf/cluster1/job.14.0.1700000000/task',
  '/lsf/cluster1/job.14[3].0.1700000000',
  '/lsf/cluster1/job.x14',
  '/user.slice/user-500.slice/user@500.service/app.slice/shell-0-f2Z3bD9eRuF.service/task',
  '/user.slice/user-500.slice/user@500.service/imp-shell-3-f2Z3bD9eRuF.service',
  '/user.slice/user-500.slice/user@501.service/shell-0-f2Z3bD9eRuF.service',
  '/user.slice/user-1000.slice/user@1000.service/shell-0-f2Z3bD9eRuF.service',
  '/user.slice/user-1000.slice/session-3.scope',
  '/user.slice/user-2005.slice/user@2005.service/app.slice/job_7/task',
  '/',
];

test('the whole-path patterns name a job cgroup exactly where the layouts do, for a peer of the Flux manager uid and of another uid', () => {
  assert.equal(FLUX_OWNER_UID_MAX, 10 ** String(FLUX_OWNER_UID_MAX).length - 1, 'the Flux pattern bounds the manager uid by its digits');
  for (const path of PATHS) {
    for (const uid of [500, 1000, 3005]) {
      assert.equal(patternsSayJob(path, uid), layoutJobId(path.split('/'), uid) !== undefined, `${path} for uid ${uid}`);
    }
  }
  assert.equal(PATHS.filter((path) => patternsSayJob(path, 3005)).length, 9, 'the job cgroups among the paths');
});
