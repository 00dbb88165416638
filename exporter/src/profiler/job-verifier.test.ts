import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cgroupJobIds, environValue, JobVerifier } from './job-verifier.js';

function fakeProc(processes: Record<number, { environ?: string; cgroup?: string; ppid?: number; cmdline?: string; uid?: number }>): string {
  const root = mkdtempSync(join(tmpdir(), 'jobio-proc-'));
  for (const [pid, files] of Object.entries(processes)) {
    mkdirSync(join(root, pid));
    if (files.environ !== undefined) writeFileSync(join(root, pid, 'environ'), files.environ);
    if (files.cgroup !== undefined) writeFileSync(join(root, pid, 'cgroup'), files.cgroup);
    if (files.ppid !== undefined) writeFileSync(join(root, pid, 'stat'), `${pid} (x y) S ${files.ppid} ${pid} ${pid} 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 100 0 0\n`);
    if (files.cmdline !== undefined) writeFileSync(join(root, pid, 'cmdline'), `${files.cmdline}\0`);
    if (files.uid !== undefined) writeFileSync(join(root, pid, 'status'), `Name:\tx\nUid:\t${files.uid}\t${files.uid}\t${files.uid}\t${files.uid}\n`);
  }
  return root;
}

test('environValue and cgroupJobIds', () => {
  const env = Buffer.from('A=1\0SLURM_JOB_ID=77\0SLURM_JOB_ID_X=9\0');
  assert.equal(environValue(env, 'SLURM_JOB_ID'), '77');
  assert.equal(environValue(env, 'PBS_JOBID'), undefined);
  assert.deepEqual(cgroupJobIds('0::/system.slice/slurmstepd.scope/job_123/step_0/user/task_0\n'), ['123']);
  assert.deepEqual(cgroupJobIds('4:memory:/slurm/uid_1000/job_55/step_batch\n'), ['55']);
  assert.deepEqual(cgroupJobIds('0::/user.slice/user-1000.slice\n'), []);
});

test('claims are checked against environ, then cgroup, then the owner of the job', () => {
  const procfs = fakeProc({
    10: { environ: 'SLURM_JOB_ID=100\0HOME=/h\0' },
    11: { environ: 'SLURM_JOB_ID=200\0' },
    12: { environ: '', cgroup: '0::/system.slice/slurmstepd.scope/job_300/step_0\n' },
    13: { cgroup: '0::/system.slice/slurmstepd.scope/job_300/step_0\n' },
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 10, uid: 1000, jobid: '100', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.verify({ pid: 11, uid: 1001, jobid: '100', source: 'SLURM_JOB_ID' }), 'mismatch', 'environ says 200');
  assert.equal(v.verify({ pid: 10, uid: 1000, jobid: '100', source: 'PBS_JOBID' }), 'mismatch', 'variable not set');
  assert.equal(v.verify({ pid: 10, uid: 1000, jobid: '100', source: 'HOME' }), 'mismatch', 'not a scheduler variable');
  assert.equal(v.verify({ pid: 12, uid: 1002, jobid: '300', source: 'SLURM_JOB_ID' }), 'verified', 'cgroup');
  assert.equal(v.verify({ pid: 13, uid: 1002, jobid: '301', source: 'SLURM_JOB_ID' }), 'mismatch', 'cgroup names another job');
  // Gone processes: accepted only if the same uid proved it belongs to the job.
  assert.equal(v.verify({ pid: 99, uid: 1000, jobid: '100', source: 'SLURM_JOB_ID' }), 'vouched');
  assert.equal(v.verify({ pid: 99, uid: 1005, jobid: '100', source: 'SLURM_JOB_ID' }), 'unverified', 'another uid\'s environ claim vouches for nobody else');
  assert.equal(v.verify({ pid: 99, uid: 1005, jobid: '555', source: 'SLURM_JOB_ID' }), 'unverified', 'nobody vouches for job 555');
  assert.equal(v.verify({ pid: 11, uid: 1001, jobid: '', source: '' }), 'verified', 'no claim');
  v.retainOnly(new Set(['300']));
  assert.equal(v.ownedJobs, 1);
  assert.equal(v.verify({ pid: 99, uid: 1000, jobid: '100', source: 'SLURM_JOB_ID' }), 'unverified', 'owner forgotten: must prove itself again');
  assert.equal(v.verify({ pid: 99, uid: 1002, jobid: '300', source: 'SLURM_JOB_ID' }), 'vouched', 'kept');
});

test('a job cgroup outranks the environment: SLURM_JOB_ID set by hand cannot enter another user\'s job', () => {
  const procfs = fakeProc({
    20: { environ: 'SLURM_JOB_ID=400\0', cgroup: '4:memory:/slurm_vm/uid_1000/job_400/step_batch/task_0\n' },
    21: { environ: 'SLURM_JOB_ID=400\0', cgroup: '0::/user.slice\n' }, // another user, outside any job
    22: { environ: 'SLURM_JOB_ID=400\0', cgroup: '4:memory:/slurm_vm/uid_1000/job_401/step_batch/task_0\n' }, // inside job 401
    23: { environ: 'SLURM_JOB_ID=500\0' }, // no job cgroups on this host
    24: { environ: 'SLURM_JOB_ID=500\0' },
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 21, uid: 1001, jobid: '400', source: 'SLURM_JOB_ID' }), 'verified', 'environ alone, nobody owns 400 yet');
  assert.equal(v.verify({ pid: 20, uid: 1000, jobid: '400', source: 'SLURM_JOB_ID' }), 'verified', 'the cgroup makes uid 1000 the owner');
  assert.equal(v.verify({ pid: 21, uid: 1001, jobid: '400', source: 'SLURM_JOB_ID' }), 'mismatch', 'environ cannot outvote the owner');
  assert.equal(v.verify({ pid: 22, uid: 1000, jobid: '400', source: 'SLURM_JOB_ID' }), 'mismatch', 'the cgroup names job 401, whatever the environment says');
  assert.equal(v.verify({ pid: 23, uid: 1000, jobid: '500', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.verify({ pid: 24, uid: 1001, jobid: '500', source: 'SLURM_JOB_ID' }), 'verified', 'environ is no proof of ownership: each uid\'s claim stands for itself');
  assert.equal(v.ownerOf('500'), undefined);
});

test('job squatting: a claim backed only by the environment, made before the owner is seen, takes no ownership', () => {
  const procfs = fakeProc({
    60: { environ: 'SLURM_JOB_ID=900\0' }, // the squatter (uid 1001), first
    61: { environ: 'SLURM_JOB_ID=900\0' }, // the job's real user (uid 1000), no job cgroups on this host
    62: { environ: 'SLURM_JOB_ID=900\0', cgroup: '0::/system.slice/slurmstepd.scope/job_900/step_0\n' },
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 60, uid: 1001, jobid: '900', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.ownerOf('900'), undefined, 'before: the squatter became the owner');
  assert.equal(v.verify({ pid: 61, uid: 1000, jobid: '900', source: 'SLURM_JOB_ID' }), 'verified', 'before: the real user was refused as a mismatch');
  assert.equal(v.verify({ pid: 62, uid: 1000, jobid: '900', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.ownerOf('900'), 1000, 'kernel evidence (the job cgroup) makes the owner');
  assert.equal(v.verify({ pid: 60, uid: 1001, jobid: '900', source: 'SLURM_JOB_ID' }), 'mismatch', 'from then on the squatter is refused');
});

test('without job cgroups, descent from the job\'s root-owned slurmstepd is kernel evidence of the job', () => {
  const procfs = fakeProc({
    1: { ppid: 0, cmdline: '/sbin/init', uid: 0 },
    40: { ppid: 1, cmdline: 'slurmstepd: [600.batch]', uid: 0 },
    41: { ppid: 40, cmdline: '/bin/sh', uid: 1000 },
    42: { ppid: 41, cmdline: 'dd', uid: 1000, environ: 'SLURM_JOB_ID=600\0' }, // alice's job 600
    43: { ppid: 1, cmdline: 'slurmstepd: [600.batch]', uid: 1001 }, // bob's imitation of a step daemon
    44: { ppid: 43, cmdline: 'dd', uid: 1001, environ: 'SLURM_JOB_ID=600\0' },
    45: { ppid: 1, cmdline: 'slurmstepd: [601.batch]', uid: 0 },
    46: { ppid: 45, cmdline: 'dd', uid: 1001, environ: 'SLURM_JOB_ID=600\0' }, // bob inside his job 601 claims 600
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 46, uid: 1001, jobid: '600', source: 'SLURM_JOB_ID' }), 'mismatch', 'the step daemon names job 601');
  assert.equal(v.verify({ pid: 44, uid: 1001, jobid: '600', source: 'SLURM_JOB_ID' }), 'verified', 'a user-owned imitation is no evidence: environ only, nobody owns 600 yet');
  assert.equal(v.verify({ pid: 42, uid: 1000, jobid: '600', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.ownerOf('600'), 1000);
  assert.equal(v.verify({ pid: 44, uid: 1001, jobid: '600', source: 'SLURM_JOB_ID' }), 'mismatch');
});

test('a claim that cannot be checked is refused unless the same uid has a verified claim on the job', () => {
  const procfs = fakeProc({
    30: { environ: 'SLURM_JOB_ID=700\0', cgroup: '0::/system.slice/slurmstepd.scope/job_700/step_batch\n' }, // B's batch shell
  });
  const v = new JobVerifier(procfs);
  // User A (1001) claims B's job 700 from a process already gone, before any of B's processes is seen.
  assert.equal(v.verify({ pid: 98, uid: 1001, jobid: '700', source: 'SLURM_JOB_ID' }), 'unverified');
  assert.equal(v.ownerOf('700'), undefined, 'an unverified claim owns nothing');
  // B's batch shell is verified through its start-up frame; B's short process (gone) is then vouched for.
  assert.equal(v.verify({ pid: 30, uid: 1000, jobid: '700', source: 'SLURM_JOB_ID' }), 'verified');
  assert.equal(v.verify({ pid: 97, uid: 1000, jobid: '700', source: 'SLURM_JOB_ID' }), 'vouched');
  assert.equal(v.verify({ pid: 98, uid: 1001, jobid: '700', source: 'SLURM_JOB_ID' }), 'mismatch');
  // jobio run's private receiver trusts its own children.
  assert.equal(new JobVerifier(procfs, { trustClaims: true }).verify({ pid: 96, uid: 1000, jobid: '701', source: 'SLURM_JOB_ID' }), 'verified');
});

test('a Flux claim in the ƒ spelling is checked against the job\'s sdexec unit; a user\'s look-alike unit proves nothing', () => {
  const unit = '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n';
  const procfs = fakeProc({
    30: { environ: 'FLUX_JOB_ID=ƒiFkbMhFM\0', cgroup: unit },
    31: { environ: 'FLUX_JOB_ID=ƒiFkbMhFM\0', cgroup: '0::/user.slice/user-1001.slice/user@1001.service/app.slice/imp-shell-0-fiFkbMhFM.service\n' },
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 30, uid: 1000, jobid: 'ƒiFkbMhFM', source: 'FLUX_JOB_ID' }), 'verified');
  assert.equal(v.ownerOf('ƒiFkbMhFM'), 1000, 'proved by the kernel: the unit of Flux\'s manager (uid 500) holds a process of uid 1000');
  // Bob's own unit is no kernel evidence: his claim rests on his environment only and meets alice's ownership.
  assert.equal(v.verify({ pid: 31, uid: 1001, jobid: 'ƒiFkbMhFM', source: 'FLUX_JOB_ID' }), 'mismatch');
});
