// A 2-rank MPI job whose I/O phases each start 150 ms into a second of `jobio run` (its frames are
// counted from JOBIO_FRAME_ORIGIN_NS), so the test can tell each call's frame from its strace -ttt
// time without a call near a frame's end. Rank r: writes 10*(r+1) records of 100 bytes to
// DIR/rank-r.dat; a second later reads them back (100 bytes a read, then the read at the end of the
// file); a second later stats its file and probes a file that does not exist; then waits for the
// next second to start before it ends. MPI_Init and
// MPI_Finalize are each between two probes of /proc/self/jobio-mark-* (a file system the profiler
// ignores), so strace tells the MPI library's calls from the program's.
// Usage: mpi-frames DIR
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Sleeps until 150 ms into the first second of the run that starts at least 300 ms from now. */
static void next_phase(void) {
  const char *origin_text = getenv("JOBIO_FRAME_ORIGIN_NS");
  if (origin_text == NULL) return;
  long long origin = atoll(origin_text);
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long long t = (long long)now.tv_sec * 1000000000LL + now.tv_nsec + 300000000LL;
  long long k = (t - origin) / 1000000000LL + 1;
  long long at = origin + k * 1000000000LL + 150000000LL;
  if (at - 1000000000LL >= t) at -= 1000000000LL;
  struct timespec ts = {(time_t)(at / 1000000000LL), (long)(at % 1000000000LL)};
  while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) != 0) {
  }
}

static void mark(const char *what) {
  char path[128];
  snprintf(path, sizeof path, "/proc/self/jobio-mark-%s", what);
  (void)access(path, F_OK);
}

int main(int argc, char **argv) {
  mark("init");
  MPI_Init(&argc, &argv);
  mark("init-done");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 2) {
    MPI_Finalize();
    return 2;
  }
  char path[4096], missing[4096], record[100];
  memset(record, 'a' + rank, sizeof record);
  snprintf(path, sizeof path, "%s/rank-%d.dat", argv[1], rank);
  snprintf(missing, sizeof missing, "%s/missing-%d", argv[1], rank);
  int status = 0;

  next_phase();
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) status = 1;
  for (int i = 0; fd >= 0 && i < 10 * (rank + 1); i++)
    if (write(fd, record, sizeof record) != (ssize_t)sizeof record) status = 1;
  if (fd >= 0) close(fd);
  MPI_Barrier(MPI_COMM_WORLD);

  next_phase();
  fd = open(path, O_RDONLY);
  if (fd < 0) status = 1;
  while (fd >= 0 && read(fd, record, sizeof record) > 0) {
  }
  if (fd >= 0) close(fd);
  MPI_Barrier(MPI_COMM_WORLD);

  next_phase();
  struct stat st;
  if (stat(path, &st) != 0 || st.st_size != 1000 * (rank + 1)) status = 1;
  if (access(missing, F_OK) == 0) status = 1;
  MPI_Barrier(MPI_COMM_WORLD);

  next_phase(); /* the last phase's second ends before the run does (a run's last, partial second
                   joins the one before it) */
  mark("finalize");
  MPI_Finalize();
  mark("finalize-done");
  return status;
}
