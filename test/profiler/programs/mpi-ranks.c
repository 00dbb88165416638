// A 4-rank MPI job for `jobio run` tests: rank r touches (r+1)*16 MiB, writes a small file and its
// pid into DIR, holds its memory for HOLD seconds (so the test and the sampler read /proc meanwhile),
// then exits. Usage: mpi-ranks DIR HOLD
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    MPI_Finalize();
    return 2;
  }
  size_t bytes = (size_t)(rank + 1) * 16 * 1024 * 1024;
  char *block = malloc(bytes);
  if (block == NULL) {
    MPI_Finalize();
    return 1;
  }
  memset(block, rank + 1, bytes); // touched: resident, not only reserved
  char path[4096];
  snprintf(path, sizeof path, "%s/rank-%d.out", argv[1], rank);
  FILE *out = fopen(path, "w");
  if (out != NULL) {
    fprintf(out, "rank %d wrote %zu bytes of memory\n", rank, bytes);
    fclose(out);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The pid file is written last (renamed into place): when the test sees it, the memory is resident.
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s/.rank-%d.pid", argv[1], rank);
  snprintf(path, sizeof path, "%s/rank-%d.pid", argv[1], rank);
  FILE *pid = fopen(tmp, "w");
  if (pid != NULL) {
    fprintf(pid, "%d\n", (int)getpid());
    fclose(pid);
    rename(tmp, path);
  }
  sleep((unsigned)atoi(argv[2]));
  MPI_Barrier(MPI_COMM_WORLD);
  volatile char sink = block[bytes - 1];
  (void)sink;
  free(block);
  MPI_Finalize();
  return 0;
}
