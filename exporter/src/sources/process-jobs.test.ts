import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStatusMemory, ProcessJobTracker } from './process-jobs.js';

const asRoot = process.getuid?.() === 0;

test('parseStatusMemory: VmRSS and VmHWM in bytes; a zombie has neither', () => {
  assert.deepEqual(parseStatusMemory('Name:\tdd\nUid:\t2000\t2000\t2000\t2000\nVmHWM:\t    3000 kB\nVmRSS:\t    1000 kB\n'), { rss: 1000 * 1024, hwm: 3000 * 1024 });
  assert.deepEqual(parseStatusMemory('Name:\tdd\nState:\tZ (zombie)\n'), { rss: 0, hwm: 0 });
});

/** A made-up /proc: each process a directory owned by its uid, with stat, status and environ. */
function fakeProc(): { procfs: string; add: (pid: number, uid: number, env: string[], ticks: number[], rssKib: number, hwmKib: number) => void; remove: (pid: number) => void } {
  const procfs = mkdtempSync(join(tmpdir(), 'jobio-process-jobs-'));
  return {
    procfs,
    add(pid, uid, env, ticks, rssKib, hwmKib) {
      const dir = join(procfs, String(pid));
      mkdirSync(dir);
      writeFileSync(join(dir, 'stat'), `${pid} (job) S 1 ${pid} ${pid} 0 -1 0 0 0 0 0 ${ticks.join(' ')} 20 0 1 0 ${1000 + pid} 0 0\n`);
      writeFileSync(join(dir, 'status'), `Name:\tjob\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\nVmHWM:\t${hwmKib} kB\nVmRSS:\t${rssKib} kB\n`);
      writeFileSync(join(dir, 'environ'), env.map((e) => `${e}\0`).join(''));
      writeFileSync(join(dir, 'cgroup'), '0::/user.slice/user-0.slice/session-1.scope\n');
      chownSync(dir, uid, uid);
    },
    remove(pid) {
      rmSync(join(procfs, String(pid)), { recursive: true, force: true });
    },
  };
}

test("a job's processes summed: only those naming the job AND owned by its owner; CPU never goes back; the peak is kept", { skip: asRoot ? false : 'chowns the made-up /proc entries' }, async () => {
  const proc = fakeProc();
  try {
    proc.add(100, 2000, ['JOB_ID=7', 'QUEUE=all.q'], [100, 50, 20, 10], 1000, 3000);
    proc.add(101, 2000, ['JOB_ID=7'], [10, 0, 0, 0], 500, 600);
    proc.add(102, 2001, ['JOB_ID=7'], [9000, 9000, 0, 0], 90000, 90000); // another user claims job 7
    proc.add(103, 2000, ['JOB_ID=8'], [9000, 9000, 0, 0], 90000, 90000); // a job the spool does not name
    proc.add(104, 0, ['JOB_ID=7'], [9000, 9000, 0, 0], 90000, 90000); // root (sge_shepherd) is no owner
    proc.add(105, 2000, ['HOME=/home/alice'], [9000, 9000, 0, 0], 90000, 90000); // the owner, outside the job
    const tracker = new ProcessJobTracker(proc.procfs, 100);
    const jobs = new Map([['7', 2000]]);
    const first = { jobid: '7', uid: 2000, processes: 2, cpu: { user: 1.3, system: 0.6 }, memoryBytes: 1500 * 1024, memoryPeakBytes: 3000 * 1024 };
    assert.deepEqual(await tracker.sample(jobs), [first]);
    // pid 101 ends, reaped outside the job: its 0.1 s leaves the sum, the counter stays where it was.
    proc.remove(101);
    assert.deepEqual(await tracker.sample(jobs), [{ ...first, processes: 1, memoryBytes: 1000 * 1024 }]);
    // pid 100 goes on: the counter moves on from the highest sum.
    proc.remove(100);
    proc.add(100, 2000, ['JOB_ID=7'], [200, 60, 20, 10], 200, 3500);
    assert.deepEqual(await tracker.sample(jobs), [{ ...first, processes: 1, cpu: { user: 2.2, system: 0.7 }, memoryBytes: 200 * 1024, memoryPeakBytes: 3500 * 1024 }]);
    // No live process: no sample (the caller keeps the job's last one as its final values).
    proc.remove(100);
    assert.deepEqual(await tracker.sample(jobs), []);
    // A job no longer in the spool is not looked for.
    assert.deepEqual(await tracker.sample(new Map()), []);
  } finally {
    rmSync(proc.procfs, { recursive: true, force: true });
  }
});

test(
  "a process seen before the job's exec (same pid and start time, not yet the job's environment) is found at a later sample",
  { skip: asRoot ? false : 'chowns the made-up /proc entries' },
  async () => {
    const proc = fakeProc();
    try {
      // The scheduler's child after its setuid, before it execs the job's shell: the owner's, naming no job.
      proc.add(200, 2000, ['PATH=/usr/bin'], [0, 0, 0, 0], 100, 100);
      const tracker = new ProcessJobTracker(proc.procfs, 100);
      const jobs = new Map([['9', 2000]]);
      assert.deepEqual(await tracker.sample(jobs), []);
      // The exec: the same pid and start time, now the job's environment and its CPU.
      proc.remove(200);
      proc.add(200, 2000, ['JOB_ID=9'], [120, 20, 0, 0], 400, 500);
      assert.deepEqual(await tracker.sample(jobs), [{ jobid: '9', uid: 2000, processes: 1, cpu: { user: 1.2, system: 0.2 }, memoryBytes: 400 * 1024, memoryPeakBytes: 500 * 1024 }]);
    } finally {
      rmSync(proc.procfs, { recursive: true, force: true });
    }
  },
);
