// Owners of v2 job cgroups come from the real uids of the job's task processes, never from the
// directory owner (Slurm's cgroup/v2 plugin creates everything as root).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCgroupJobs, type OwnerCache } from './cgroup-jobs.js';

function tree(): { root: string; scope: string; proc: string } {
  const root = mkdtempSync(join(tmpdir(), 'jobio-cgjobs-'));
  const scope = join(root, 'sys/fs/cgroup/system.slice/slurmstepd.scope');
  mkdirSync(scope, { recursive: true });
  mkdirSync(join(root, 'proc'));
  return { root, scope, proc: join(root, 'proc') };
}

function processOf(proc: string, pid: number, uid: number): void {
  mkdirSync(join(proc, String(pid)));
  writeFileSync(join(proc, String(pid), 'status'), `Name:\tx\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n`);
}

test('v2 owner: the task processes decide; a job with no task yet waits; the owner is kept once found', async () => {
  const { root, scope, proc } = tree();
  try {
    const paths = { procfs: proc, sysfs: join(root, 'sys'), rootfs: root };
    // Job 7: slurmstepd (root) in step_0/slurm, the user's task in step_0/user/task_0.
    mkdirSync(join(scope, 'job_7/step_0/slurm'), { recursive: true });
    mkdirSync(join(scope, 'job_7/step_0/user/task_0'), { recursive: true });
    writeFileSync(join(scope, 'job_7/step_0/slurm/cgroup.procs'), '100\n');
    writeFileSync(join(scope, 'job_7/step_0/user/task_0/cgroup.procs'), '200\n201\n');
    processOf(proc, 100, 0);
    processOf(proc, 200, 1234);
    // Job 8: only its extern step so far (no user cgroup with a process).
    mkdirSync(join(scope, 'job_8/step_extern'), { recursive: true });
    writeFileSync(join(scope, 'job_8/step_extern/cgroup.procs'), '100\n');
    const owners: OwnerCache = new Map();
    const first = await findCgroupJobs(paths, owners);
    assert.deepEqual(
      first.jobs.map((j) => [j.jobid, j.uid]),
      [
        ['7', 1234],
        ['8', undefined],
      ],
    );
    // The task exits: the owner found before is kept while the job's cgroup exists.
    writeFileSync(join(scope, 'job_7/step_0/user/task_0/cgroup.procs'), '');
    const second = await findCgroupJobs(paths, owners);
    assert.deepEqual(
      second.jobs.map((j) => [j.jobid, j.uid]),
      [
        ['7', 1234],
        ['8', undefined],
      ],
    );
    // Job 7's cgroup is removed: its owner is forgotten.
    rmSync(join(scope, 'job_7'), { recursive: true });
    await findCgroupJobs(paths, owners);
    assert.equal(owners.has('7'), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
