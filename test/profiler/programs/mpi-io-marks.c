/* MPI-IO inside a program's own POSIX I/O. Rank r: writes DIR/own-r.txt with 5 writes of 100 bytes
 * and reads it back (its own I/O); then every rank opens DIR/shared.dat with MPI_File_open, sets a
 * view, writes 16 KiB with one collective MPI_File_write_all, syncs and closes it (the MPI-IO
 * library's I/O); then reads its own file once more. The MPI-IO calls are between two probes of
 * /proc/self/jobio-mark-* (a file system the profiler ignores), so strace tells the library's
 * calls from the program's.
 * Usage: mpi-io-marks DIR */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void mark(const char *what) {
  char path[128];
  snprintf(path, sizeof path, "/proc/self/jobio-mark-%s", what);
  (void)access(path, F_OK);
}

static int own_read(const char *path) {
  char buf[100];
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 1;
  while (read(fd, buf, sizeof buf) > 0) {
  }
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) {
    MPI_Finalize();
    return 2;
  }
  char own[4096], shared[4096], record[100];
  static char block[16384];
  snprintf(own, sizeof own, "%s/own-%d.txt", argv[1], rank);
  snprintf(shared, sizeof shared, "%s/shared.dat", argv[1]);
  memset(record, 'a' + rank, sizeof record);
  memset(block, 'A' + rank, sizeof block);
  int status = 0;

  int fd = open(own, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (int i = 0; fd >= 0 && i < 5; i++)
    if (write(fd, record, sizeof record) != (ssize_t)sizeof record) status = 1;
  if (fd >= 0) close(fd);
  status |= own_read(own);
  MPI_Barrier(MPI_COMM_WORLD);

  mark("io");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc == MPI_SUCCESS) {
    rc = MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof block, MPI_CHAR, MPI_CHAR, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS) rc = MPI_File_write_all(fh, block, (int)sizeof block, MPI_CHAR, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = MPI_File_sync(fh);
    MPI_File_close(&fh);
  }
  mark("io-done");
  if (rc != MPI_SUCCESS) status = 1;

  status |= own_read(own);
  MPI_Finalize();
  return status;
}
