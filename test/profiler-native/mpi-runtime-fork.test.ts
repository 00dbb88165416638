// A process forked while ANOTHER of its threads is inside MPI_Init: that start-up is not the child's
// (the thread is not in the child), so the child's calls are the program's, not the MPI runtime's.
// t_mpi_fork runs a stand-in MPI library whose MPI_Init waits until released; the child opens and
// closes one file 3 times while it waits.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTests, callsOfKinds, removeDir, runProfiled, tempDir, testBin } from './harness.js';

before(() => buildTests());

test("a child forked while another thread is inside MPI_Init: its 3 opens are the program's, none the MPI runtime's", async () => {
  const dir = tempDir();
  try {
    const r = await runProfiled(testBin('t_mpi_fork'), [dir], { dir });
    assert.equal(r.status, 0, r.stderr.toString());
    const procs = r.dump.processes.filter((p) => p.final && p.exe.endsWith('t_mpi_fork'));
    assert.equal(procs.length, 2, 'parent and child');
    const opens = (component: string): number =>
      callsOfKinds(
        procs.flatMap((p) => p.mounts.filter((m) => m.component === component)),
        ['open'],
      )['open'] ?? 0;
    assert.equal(opens(''), 3);
    assert.equal(opens('mpi-runtime'), 0);
  } finally {
    removeDir(dir);
  }
});
