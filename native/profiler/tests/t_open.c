/* open family: open open64 openat openat64 creat creat64 __open_2 __open64_2 __openat_2 __openat64_2.
 * Expected (small threshold 32768):
 *   create: green 1 (b, 40000 written), yellow 1 (a, 100), red 2 (first creat of c; failed create in nodir/)
 *   open:   green 2 (b read 40000; the directory, whose descriptor openat64 used), yellow 2 (openat64 a read
 *           100; b left open with 100 read, decided at exit), red 6 (creat64 of existing c, missing,
 *           4 x __open*_2 with no bytes)
 *   read:   green 3 (40000; EOF 0 bytes; 100 of the 1000 asked: end of file), red 1 (100)    write: green 1, red 1    close: green 11 */
#include "t_util.h"

int __open_2(const char *, int);
int __open64_2(const char *, int);
int __openat_2(int, const char *, int);
int __openat64_2(int, const char *, int);

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("a"), O_CREAT | O_WRONLY, 0644);
  CHECK(fd >= 0 && write(fd, t_buf, 100) == 100 && close(fd) == 0);
  fd = open64(P("b"), O_CREAT | O_WRONLY | O_EXCL, 0644);
  CHECK(fd >= 0 && write(fd, t_buf, 40000) == 40000 && close(fd) == 0);
  fd = openat(AT_FDCWD, P("b"), O_RDONLY);
  CHECK(fd >= 0 && read(fd, t_buf, 65536) == 40000 && read(fd, t_buf, 100) == 0 && close(fd) == 0);
  int dfd = open(t_dir, O_RDONLY | O_DIRECTORY);
  CHECK(dfd >= 0);
  fd = openat64(dfd, "a", O_RDONLY);
  CHECK(fd >= 0 && read(fd, t_buf, 1000) == 100 && close(fd) == 0 && close(dfd) == 0);
  fd = creat(P("c"), 0644);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = creat64(P("c"), 0644);
  CHECK(fd >= 0 && close(fd) == 0);
  CHECK(open(P("missing"), O_RDONLY) == -1 && errno == ENOENT);
  CHECK(open(P("nodir/x"), O_CREAT | O_WRONLY, 0644) == -1 && errno == ENOENT);
  fd = __open_2(P("a"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = __open64_2(P("a"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = __openat_2(AT_FDCWD, P("a"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = __openat64_2(AT_FDCWD, P("a"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = open(P("b"), O_RDONLY);
  CHECK(fd >= 0 && read(fd, t_buf, 100) == 100); /* left open: decided at exit */
  return 0;
}
