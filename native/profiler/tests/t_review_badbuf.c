/* Review: a stat family call given an invalid buffer fails with EFAULT and the program carries on,
 * with or without the profiler (the profiler must not read the answer of a failed call). */
#include "t_util.h"

/* an invalid buffer the compiler cannot see through (it warns about a literal NULL) */
static void *volatile nowhere;

#define EXPECT_EFAULT(expr)                \
  do {                                     \
    errno = 0;                             \
    int r_ = (expr);                       \
    CHECK(r_ == -1 && errno == EFAULT);    \
  } while (0)

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(close(fd) == 0);
  EXPECT_EFAULT(stat(P("f"), nowhere));
  EXPECT_EFAULT(lstat(P("f"), nowhere));
  EXPECT_EFAULT(stat64(P("f"), nowhere));
  EXPECT_EFAULT(lstat64(P("f"), nowhere));
  EXPECT_EFAULT(fstatat(AT_FDCWD, P("f"), nowhere, 0));
  EXPECT_EFAULT(fstatat64(AT_FDCWD, P("f"), nowhere, 0));
  EXPECT_EFAULT(stat(P("f"), (struct stat *)((char *)nowhere + 8)));
  EXPECT_EFAULT(statx(AT_FDCWD, P("f"), 0, STATX_BASIC_STATS, nowhere));
  printf("ok\n");
  return 0;
}
