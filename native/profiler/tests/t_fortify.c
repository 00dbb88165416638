/* Built with -O2 -D_FORTIFY_SOURCE=2 (build/tests/t_fortify_on): read/pread/fread/open/openat
 * become __read_chk, __pread_chk, __fread_chk, __open_2, __openat_2 (the test checks the imports).
 *   write red 200 (setup, 4096 each); read red 410 (200 read + 10 pread + 200 fread, 4096 each)
 *   create green 1; open green 2 (__open_2 fd, fopen), open red 1 (__openat_2, no bytes); close green 4 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  char buf[4096];
  memset(buf, 'y', sizeof buf);
  volatile size_t n = sizeof buf; /* not a compile-time constant: the _chk variants are called */
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 200; i++) CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
  CHECK(close(fd) == 0);
  volatile int flags = O_RDONLY;
  fd = open(P("f"), flags);
  CHECK(fd >= 0);
  for (int i = 0; i < 200; i++) CHECK(read(fd, buf, n) == (ssize_t)sizeof buf);
  for (int i = 0; i < 10; i++) CHECK(pread(fd, buf, n, 0) == (ssize_t)sizeof buf);
  CHECK(close(fd) == 0);
  FILE *fp = fopen(P("f"), "r");
  CHECK(fp);
  for (int i = 0; i < 200; i++) CHECK(fread(buf, 1, n, fp) == sizeof buf);
  CHECK(fclose(fp) == 0);
  fd = openat(AT_FDCWD, P("f"), flags);
  CHECK(fd >= 0 && close(fd) == 0);
  return 0;
}
