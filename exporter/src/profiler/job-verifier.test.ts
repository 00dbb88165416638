import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cgroupJobIds, environValue, JobVerifier } from './job-verifier.js';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fakeProc } from '../../../test/helpers/fake-proc.js';

type Verdict = ReturnType<JobVerifier['verify']>;
/** pid and uid of a profiled process, the job it claims, the verdict expected, why, and the variable it names (SLURM_JOB_ID unless given). */
type Claim = readonly [pid: number, uid: number, jobid: string, verdict: Verdict, why?: string, source?: string];

/** Checks each claim in order (the verifier learns owners as it goes). */
function expectVerdicts(v: JobVerifier, claims: readonly Claim[]): void {
  for (const [pid, uid, jobid, verdict, why = '', source = 'SLURM_JOB_ID'] of claims) {
    assert.equal(v.verify({ pid, uid, jobid, source }), verdict, `pid ${pid} uid ${uid} claims job "${jobid}" via ${source || 'nothing'}${why ? `: ${why}` : ''}`);
  }
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
  expectVerdicts(v, [
    [10, 1000, '100', 'verified'],
    [11, 1001, '100', 'mismatch', 'environ says 200'],
    [10, 1000, '100', 'mismatch', 'variable not set', 'PBS_JOBID'],
    [10, 1000, '100', 'mismatch', 'not a scheduler variable', 'HOME'],
    [12, 1002, '300', 'verified', 'cgroup'],
    [13, 1002, '301', 'mismatch', 'cgroup names another job'],
  ]);
  // Gone processes: accepted only if the same uid proved it belongs to the job.
  expectVerdicts(v, [
    [99, 1000, '100', 'vouched'],
    [99, 1005, '100', 'unverified', "another uid's environ claim vouches for nobody else"],
    [99, 1005, '555', 'unverified', 'nobody vouches for job 555'],
    [11, 1001, '', 'verified', 'no claim', ''],
  ]);
  v.retainOnly(new Set(['300']));
  assert.equal(v.ownedJobs, 1);
  expectVerdicts(v, [
    [99, 1000, '100', 'unverified', 'owner forgotten: must prove itself again'],
    [99, 1002, '300', 'vouched', 'kept'],
  ]);
});

test("a job cgroup outranks the environment: SLURM_JOB_ID set by hand cannot enter another user's job", () => {
  const procfs = fakeProc({
    20: { environ: 'SLURM_JOB_ID=400\0', cgroup: '4:memory:/slurm_vm/uid_1000/job_400/step_batch/task_0\n' },
    21: { environ: 'SLURM_JOB_ID=400\0', cgroup: '0::/user.slice\n' }, // another user, outside any job
    22: { environ: 'SLURM_JOB_ID=400\0', cgroup: '4:memory:/slurm_vm/uid_1000/job_401/step_batch/task_0\n' }, // inside job 401
    23: { environ: 'SLURM_JOB_ID=500\0' }, // no job cgroups on this host
    24: { environ: 'SLURM_JOB_ID=500\0' },
  });
  const v = new JobVerifier(procfs);
  expectVerdicts(v, [
    [21, 1001, '400', 'verified', 'environ alone, nobody owns 400 yet'],
    [20, 1000, '400', 'verified', 'the cgroup makes uid 1000 the owner'],
    [21, 1001, '400', 'mismatch', 'environ cannot outvote the owner'],
    [22, 1000, '400', 'mismatch', 'the cgroup names job 401, whatever the environment says'],
    [23, 1000, '500', 'verified'],
    [24, 1001, '500', 'verified', "environ is no proof of ownership: each uid's claim stands for itself"],
  ]);
  assert.equal(v.ownerOf('500'), undefined);
});

test('job squatting: a claim backed only by the environment, made before the owner is seen, takes no ownership', () => {
  const procfs = fakeProc({
    60: { environ: 'SLURM_JOB_ID=900\0' }, // the squatter (uid 1001), first
    61: { environ: 'SLURM_JOB_ID=900\0' }, // the job's real user (uid 1000), no job cgroups on this host
    62: { environ: 'SLURM_JOB_ID=900\0', cgroup: '0::/system.slice/slurmstepd.scope/job_900/step_0\n' },
  });
  const v = new JobVerifier(procfs);
  expectVerdicts(v, [[60, 1001, '900', 'verified']]);
  assert.equal(v.ownerOf('900'), undefined, 'before: the squatter became the owner');
  expectVerdicts(v, [
    [61, 1000, '900', 'verified', 'before: the real user was refused as a mismatch'],
    [62, 1000, '900', 'verified'],
  ]);
  assert.equal(v.ownerOf('900'), 1000, 'kernel evidence (the job cgroup) makes the owner');
  expectVerdicts(v, [[60, 1001, '900', 'mismatch', 'from then on the squatter is refused']]);
});

test("without job cgroups, descent from the job's root-owned slurmstepd is kernel evidence of the job", () => {
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
  expectVerdicts(v, [
    [46, 1001, '600', 'mismatch', 'the step daemon names job 601'],
    [44, 1001, '600', 'verified', 'a user-owned imitation is no evidence: environ only, nobody owns 600 yet'],
    [42, 1000, '600', 'verified'],
  ]);
  assert.equal(v.ownerOf('600'), 1000);
  expectVerdicts(v, [[44, 1001, '600', 'mismatch']]);
});

test("a kernel-proven owner is kept for the life of its step daemon, not only while the job's processes are known", () => {
  const procfs = fakeProc({
    1: { ppid: 0, cmdline: '/sbin/init', uid: 0 },
    40: { ppid: 1, cmdline: 'slurmstepd: [600.batch]', uid: 0 },
    42: { ppid: 40, cmdline: 'dd', uid: 1000, environ: 'SLURM_JOB_ID=600\0' },
    44: { ppid: 1, cmdline: 'dd', uid: 1001, environ: 'SLURM_JOB_ID=600\0' }, // squatter outside the job
  });
  const v = new JobVerifier(procfs);
  expectVerdicts(v, [[42, 1000, '600', 'verified']]);
  v.retainOnly(new Set()); // none of the job's processes known any more
  assert.equal(v.ownerOf('600'), 1000, 'the step daemon still runs');
  expectVerdicts(v, [
    [44, 1001, '600', 'mismatch', 'the squatter does not come back'],
    [99, 1000, '600', 'vouched', "the owner's short processes are still vouched for"],
  ]);
  rmSync(join(procfs, '40'), { recursive: true });
  v.retainOnly(new Set());
  assert.equal(v.ownerOf('600'), undefined, 'the job ended here');
  rmSync(procfs, { recursive: true, force: true });
});

test('a claim that cannot be checked is refused unless the same uid has a verified claim on the job', () => {
  const procfs = fakeProc({
    30: { environ: 'SLURM_JOB_ID=700\0', cgroup: '0::/system.slice/slurmstepd.scope/job_700/step_batch\n' }, // B's batch shell
  });
  const v = new JobVerifier(procfs);
  // User A (1001) claims B's job 700 from a process already gone, before any of B's processes is seen.
  expectVerdicts(v, [[98, 1001, '700', 'unverified']]);
  assert.equal(v.ownerOf('700'), undefined, 'an unverified claim owns nothing');
  // B's batch shell is verified through its start-up frame; B's short process (gone) is then vouched for.
  expectVerdicts(v, [
    [30, 1000, '700', 'verified'],
    [97, 1000, '700', 'vouched'],
    [98, 1001, '700', 'mismatch'],
  ]);
  // jobio run's private receiver trusts its own children.
  assert.equal(new JobVerifier(procfs, { trustClaims: true }).verify({ pid: 96, uid: 1000, jobid: '701', source: 'SLURM_JOB_ID' }), 'verified');
});

test("a Flux claim in the ƒ spelling is checked against the job's sdexec unit; a user's look-alike unit proves nothing", () => {
  const unit = '0::/user.slice/user-500.slice/user@500.service/imp-shell-0-fiFkbMhFM.service\n';
  const procfs = fakeProc({
    30: { environ: 'FLUX_JOB_ID=ƒiFkbMhFM\0', cgroup: unit },
    31: { environ: 'FLUX_JOB_ID=ƒiFkbMhFM\0', cgroup: '0::/user.slice/user-1001.slice/user@1001.service/app.slice/imp-shell-0-fiFkbMhFM.service\n' },
  });
  const v = new JobVerifier(procfs);
  assert.equal(v.verify({ pid: 30, uid: 1000, jobid: 'ƒiFkbMhFM', source: 'FLUX_JOB_ID' }), 'verified');
  assert.equal(v.ownerOf('ƒiFkbMhFM'), 1000, "proved by the kernel: the unit of Flux's manager (uid 500) holds a process of uid 1000");
  // Bob's own unit is no kernel evidence: his claim rests on his environment only and meets alice's ownership.
  assert.equal(v.verify({ pid: 31, uid: 1001, jobid: 'ƒiFkbMhFM', source: 'FLUX_JOB_ID' }), 'mismatch');
});
