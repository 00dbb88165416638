/* read/write family with sizes. Run with JOBIO_LARGE_THRESHOLD=45000.
 *   write: green 3 (32768, 40000, 50000), red 6 (10, 100, 32, 10, 20, failed)
 *   read:  green 3 (32768, 40000, 40000), red 6 (5, 10, 1000, 100, failed, 0 at EOF)
 *   create green 1, open green 1 (reads), open red 1 (failed read only), close green 3 */
#include <sys/uio.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, t_buf, 10) == 10);
  CHECK(write(fd, t_buf, 32768) == 32768);
  CHECK(pwrite(fd, t_buf, 100, 0) == 100);
  CHECK(pwrite64(fd, t_buf, 40000, 0) == 40000);
  struct iovec iov[2] = {{t_buf, 16}, {t_buf, 16}};
  CHECK(writev(fd, iov, 2) == 32);
  struct iovec big = {t_buf, 50000};
  CHECK(pwritev(fd, &big, 1, 0) == 50000);
  struct iovec ten = {t_buf, 10}, twenty = {t_buf, 20};
  CHECK(pwritev64(fd, &ten, 1, 0) == 10);
  CHECK(pwritev2(fd, &twenty, 1, 0, 0) == 20);
  CHECK(pread(fd, t_buf, 32768, 0) == 32768);
  CHECK(pread64(fd, t_buf, 5, 0) == 5);
  int fd2 = open(P("f"), O_RDONLY);
  CHECK(fd2 >= 0);
  CHECK(read(fd2, t_buf, 10) == 10);
  struct iovec r40 = {t_buf, 40000};
  CHECK(readv(fd2, &r40, 1) == 40000);
  struct iovec r1000 = {t_buf, 1000}, r100 = {t_buf, 100};
  CHECK(preadv(fd2, &r1000, 1, 0) == 1000);
  CHECK(preadv64(fd2, &r40, 1, 0) == 40000);
  CHECK(preadv2(fd2, &r100, 1, 0, 0) == 100);
  CHECK(write(fd2, t_buf, 10) == -1 && errno == EBADF);
  CHECK(pread(fd2, t_buf, 10, 1000000000) == 0);
  int fd3 = open(P("f"), O_WRONLY);
  CHECK(fd3 >= 0 && read(fd3, t_buf, 10) == -1 && errno == EBADF);
  CHECK(close(fd) == 0 && close(fd2) == 0 && close(fd3) == 0);
  return 0;
}
