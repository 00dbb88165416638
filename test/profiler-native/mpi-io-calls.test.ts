// MPI_File_seek (MPI_SEEK_END asks the file system for the end), MPI_File_get_position and
// MPI_File_set_info (hints can make the library reopen the file) are MPI-IO calls like the others,
// and so are MPI-4's large-count variants (MPI_File_write_at_all_c, MPI_File_iread_c): what a thread
// does inside them is the MPI-IO library's. t_mpi_file_calls runs a stand-in MPI library whose five
// calls each open and close one file, after the program opened it once itself.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTests, componentOpens, removeDir, runProfiled, tempDir, testBin } from './harness.js';

before(() => buildTests());

test("the opens inside MPI_File_seek, MPI_File_get_position, MPI_File_set_info and two large-count calls are mpi-io's, the program's own open the program's", async () => {
  const dir = tempDir();
  try {
    const r = await runProfiled(testBin('t_mpi_file_calls'), [dir], { dir });
    assert.equal(r.status, 0, r.stderr.toString());
    const opens = (component: string): number => componentOpens(r.dump, component);
    assert.equal(opens('mpi-io'), 5);
    assert.equal(opens(''), 1);
  } finally {
    removeDir(dir);
  }
});
