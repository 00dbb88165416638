/* Helpers for the profiler's C test programs: each one does an exact, known set of calls in the
 * directory given as argv[1]; the node tests in test/profiler-native assert what jobio-dump received. */
#ifndef T_UTIL_H
#define T_UTIL_H
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static char t_dir[4096];
static char t_buf[1 << 20];

/* Unexpected outcome: say so on stderr and fail with 99 (the test checks the exit code). */
#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
      exit(99);                                                                       \
    }                                                                                 \
  } while (0)

static inline const char *P(const char *name) {
  static char bufs[8][4200];
  static int i;
  char *b = bufs[i++ & 7];
  snprintf(b, sizeof bufs[0], "%s/%s", t_dir, name);
  return b;
}

static inline void t_init(int argc, char **argv) {
  CHECK(argc >= 2);
  snprintf(t_dir, sizeof t_dir, "%s", argv[1]);
  memset(t_buf, 'x', sizeof t_buf);
}
/* Create `name`, write n transfers of len bytes to it, close it (the counts a test expects). */
static inline void t_create_write_close(const char *name, int n, size_t len) {
  int fd = open(P(name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < n; i++) CHECK(write(fd, t_buf, len) == (ssize_t)len);
  CHECK(close(fd) == 0);
}
#endif
