/*
 * Profiler microbenchmark: one operation in a tight loop, timed with CLOCK_MONOTONIC.
 *   microbench OP N DIR     OP: read (pread of 4 KiB from a cached file), write (16 bytes to a
 *                           file), stat (of a file), lseek (to offset 0), send (16 bytes on a UDP
 *                           socket connected to 127.0.0.1), sendto (16 bytes with the address each
 *                           time); the receiving socket is never read: loopback drops what does
 *                           not fit, and the sender still succeeds; open (open and close of a
 *                           file by its absolute path: the profiler finds the file's mount),
 *                           open-miss (the same, alternating between files in two directories, so
 *                           the profiler's last-directory cache never answers), fwrite (20 bytes to
 *                           a stream), fputc, fgets (19-byte lines), fgetc: stdio calls that the
 *                           stream's buffer answers but once a buffer (the file is written before the
 *                           loop with write(2) in 64 KiB blocks, so that setup adds little per line),
 *                           fstat (of the open file), access (of its path), fdatasync
 * Prints "OP N ns_per_op". Run plain, under the no-op preload and under libjobio (bench/profiler/index.ts).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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
    fprintf(stderr, "usage: microbench read|read-end|write|stat|lseek|send|sendto|open|open-miss|fwrite|fputc|fgets|fgetc|fstat|access|fdatasync N DIR\n");
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
  struct sockaddr_in to;
  memset(&to, 0, sizeof to);
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t tolen = sizeof to;
  int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
  if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&to, tolen) != 0 || getsockname(rx, (struct sockaddr *)&to, &tolen) != 0) return 1;
  if (strcmp(op, "send") == 0 && connect(tx, (struct sockaddr *)&to, tolen) != 0) return 1;
  double t0 = now();
  if (strcmp(op, "read") == 0) {
    for (long i = 0; i < n; i++)
      if (pread(fd, buf, 4096, 0) != 4096) return 1;
  } else if (strcmp(op, "read-end") == 0) {
    /* a read that meets the end of the file: asks 4 KiB, gets the 1000 bytes left (short, green) */
    for (long i = 0; i < n; i++)
      if (pread(fd, buf, 4096, 3096) != 1000) return 1;
  } else if (strcmp(op, "write") == 0) {
    for (long i = 0; i < n; i++)
      if (write(fd, buf, 16) != 16) return 1;
  } else if (strcmp(op, "stat") == 0) {
    for (long i = 0; i < n; i++)
      if (stat(path, &st) != 0) return 1;
  } else if (strcmp(op, "lseek") == 0) {
    for (long i = 0; i < n; i++)
      if (lseek(fd, 0, SEEK_SET) != 0) return 1;
  } else if (strcmp(op, "open") == 0) {
    for (long i = 0; i < n; i++) {
      int f = open(path, O_RDONLY);
      if (f < 0 || close(f) != 0) return 1;
    }
  } else if (strcmp(op, "open-miss") == 0) {
    char paths[2][4200];
    for (int k = 0; k < 2; k++) {
      char sub[4150];
      snprintf(sub, sizeof sub, "%s/d%d", argv[3], k);
      if (mkdir(sub, 0755) != 0) return 1;
      snprintf(paths[k], sizeof paths[k], "%s/bench.dat", sub);
      int f = open(paths[k], O_CREAT | O_WRONLY, 0644);
      if (f < 0 || close(f) != 0) return 1;
    }
    t0 = now();
    for (long i = 0; i < n; i++) {
      int f = open(paths[i & 1], O_RDONLY);
      if (f < 0 || close(f) != 0) return 1;
    }
    for (int k = 0; k < 2; k++) {
      unlink(paths[k]);
      *strrchr(paths[k], '/') = 0;
      rmdir(paths[k]);
    }
  } else if (strcmp(op, "fwrite") == 0 || strcmp(op, "fputc") == 0) {
    FILE *f = fdopen(dup(fd), "w");
    if (!f) return 1;
    int w = op[1] == 'w';
    t0 = now();
    for (long i = 0; i < n; i++)
      if (w ? fwrite("twenty bytes, this..", 1, 20, f) != 20 : fputc('x', f) == EOF) return 1;
    if (fclose(f) != 0) return 1;
  } else if (strcmp(op, "fgets") == 0 || strcmp(op, "fgetc") == 0) {
    static char block[65536 - 65536 % 19];
    for (size_t k = 0; k < sizeof block; k += 19) memcpy(block + k, "eighteen bytes....\n", 19);
    if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) return 1;
    for (long left = n; left > 0; left -= (long)(sizeof block / 19)) {
      size_t b = left < (long)(sizeof block / 19) ? (size_t)left * 19 : sizeof block;
      if (write(fd, block, b) != (ssize_t)b) return 1;
    }
    FILE *f = fdopen(dup(fd), "r");
    if (!f || fseek(f, 0, SEEK_SET) != 0) return 1;
    char line[64];
    int g = op[4] == 's';
    t0 = now();
    for (long i = 0; i < n; i++)
      if (g ? fgets(line, sizeof line, f) == NULL : fgetc(f) == EOF) return 1;
    fclose(f);
  } else if (strcmp(op, "fstat") == 0) {
    for (long i = 0; i < n; i++)
      if (fstat(fd, &st) != 0) return 1;
  } else if (strcmp(op, "access") == 0) {
    for (long i = 0; i < n; i++)
      if (access(path, R_OK) != 0) return 1;
  } else if (strcmp(op, "fdatasync") == 0) {
    for (long i = 0; i < n; i++)
      if (fdatasync(fd) != 0) return 1;
  } else if (strcmp(op, "send") == 0) {
    for (long i = 0; i < n; i++)
      if (send(tx, buf, 16, 0) != 16) return 1;
  } else if (strcmp(op, "sendto") == 0) {
    for (long i = 0; i < n; i++)
      if (sendto(tx, buf, 16, 0, (struct sockaddr *)&to, tolen) != 16) return 1;
  } else {
    return 2;
  }
  double t1 = now();
  close(fd);
  unlink(path);
  printf("%s %ld %.1f\n", op, n, (t1 - t0) / (double)n);
  return 0;
}
