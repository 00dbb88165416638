import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SlurmCgroups } from './job-cgroup-life.js';

test("a v1 job cgroup is found (with its owner's uid) before any of the job's processes named Slurm's top directory", () => {
  const cgroupfs = mkdtempSync(join(tmpdir(), 'jobio-cgroupfs-'));
  try {
    let clock = 0;
    const cgroups = new SlurmCgroups(cgroupfs, () => clock);
    assert.equal(cgroups.here('55'), undefined, 'no Slurm hierarchy yet');
    // slurmd makes its top directory and the job's while the exporter runs
    mkdirSync(join(cgroupfs, 'freezer', 'slurm_node1', 'uid_1000', 'job_55'), { recursive: true });
    assert.equal(cgroups.here('55'), undefined, 'listed again at most once a second');
    clock += 1000;
    assert.deepEqual(cgroups.here('55'), { dir: join(cgroupfs, 'freezer', 'slurm_node1', 'uid_1000', 'job_55'), uid: 1000 });
    assert.equal(cgroups.here('56'), undefined, 'another job has no cgroup here');
    // a directory that is not Slurm's top is no evidence
    mkdirSync(join(cgroupfs, 'memory', 'user', 'uid_1001', 'job_57'), { recursive: true });
    clock += 1000;
    assert.equal(cgroups.here('57'), undefined);
  } finally {
    rmSync(cgroupfs, { recursive: true, force: true });
  }
});
