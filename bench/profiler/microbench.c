/*
 * Profiler microbenchmark: one operation in a tight loop, timed with CLOCK_MONOTONIC.
 *   microbench OP N DIR     OP: read (pread of 4 KiB from a cached file), write (16 bytes to a
 *                           file), stat (of a file), lseek (to offset 0)
 * Prints "OP N ns_per_op". Run plain, under the no-op preload and under libjobio (bench/profiler/index.ts).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: microbench read|write|stat|lseek N DIR\n");
    return 2;
  }
  const char *op = argv[1];
  long n = atol(argv[2]);
  char path[4096];
  snprintf(path, sizeof path, "%s/bench-%s.dat", argv[3], op);
  static char buf[4096];
  memset(buf, 'b', sizeof buf);
  int fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
  if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  if (pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) return 1; /* now cached */
  struct stat st;
  double t0 = now();
  if (strcmp(op, "read") == 0) {
    for (long i = 0; i < n; i++)
      if (pread(fd, buf, 4096, 0) != 4096) return 1;
  } else if (strcmp(op, "write") == 0) {
    for (long i = 0; i < n; i++)
      if (write(fd, buf, 16) != 16) return 1;
  } else if (strcmp(op, "stat") == 0) {
    for (long i = 0; i < n; i++)
      if (stat(path, &st) != 0) return 1;
  } else if (strcmp(op, "lseek") == 0) {
    for (long i = 0; i < n; i++)
      if (lseek(fd, 0, SEEK_SET) != 0) return 1;
  } else {
    return 2;
  }
  double t1 = now();
  close(fd);
  unlink(path);
  printf("%s %ld %.1f\n", op, n, (t1 - t0) / (double)n);
  return 0;
}
