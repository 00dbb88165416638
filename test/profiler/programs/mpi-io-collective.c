/* Every rank writes 16 KiB of one shared file with one collective call (MPI_File_write_at_all): MPI-IO
 * opens the file on every rank (and a lock-test file beside it), and only the aggregator writes. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  static char buf[16384];
  memset(buf, 'a' + rank, sizeof buf);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc == MPI_SUCCESS) {
    rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * (MPI_Offset)sizeof buf, buf, (int)sizeof buf, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
  }
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 0 : 1;
}
