/* lseek/lseek64 on a 1000-byte file f: backward or zero seek red, forward yellow, failure red.
 *   seek yellow 4, red 8 (see the numbered steps); read red 3 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_RDONLY);
  CHECK(fd >= 0);
  CHECK(lseek(fd, 100, SEEK_SET) == 100);       /* 1 forward: yellow */
  CHECK(lseek(fd, 100, SEEK_SET) == 100);       /* 2 zero: red */
  CHECK(lseek(fd, 50, SEEK_SET) == 50);         /* 3 backward: red */
  CHECK(lseek(fd, 10, SEEK_CUR) == 60);         /* 4 forward: yellow */
  CHECK(lseek(fd, 0, SEEK_CUR) == 60);          /* 5 zero (tell): red */
  CHECK(lseek(fd, -5, SEEK_CUR) == 55);         /* 6 backward: red */
  CHECK(lseek(fd, 0, SEEK_END) == 1000);        /* 7 forward: yellow */
  CHECK(read(fd, t_buf, 10) == 0);              /* EOF */
  CHECK(lseek64(fd, 0, SEEK_SET) == 0);         /* 9 backward: red */
  CHECK(read(fd, t_buf, 100) == 100);           /* the offset moves to 100 */
  CHECK(lseek(fd, 100, SEEK_SET) == 100);       /* 11 zero (the read moved it): red */
  CHECK(lseek64(fd, 200, SEEK_SET) == 200);     /* 12 forward: yellow */
  CHECK(lseek(fd, -1, SEEK_SET) == -1);         /* 13 failed: red */
  int fd2 = dup(fd);
  CHECK(fd2 >= 0 && read(fd2, t_buf, 50) == 50); /* the shared offset is now 250 */
  CHECK(lseek(fd, 250, SEEK_SET) == 250);       /* 14 zero: red (offset re-learnt after dup) */
  return 0;
}
