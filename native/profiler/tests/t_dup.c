/* dup dup2 dup3 fcntl(F_DUPFD, F_DUPFD_CLOEXEC): bytes moved through an alias count for the open,
 * which is decided when its last descriptor closes; dup2 over an open file decides that one.
 *   create green 1; open green 2, yellow 3, red 1; read green 2, red 3; write green 1; close green 12 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int a = dup(fd);
  CHECK(fd >= 0 && a >= 0 && close(fd) == 0);
  CHECK(write(a, t_buf, 40000) == 40000 && close(a) == 0); /* create: green through the alias */
  fd = open(P("f"), O_RDONLY);
  CHECK(dup2(fd, 100) == 100 && close(fd) == 0);
  CHECK(read(100, t_buf, 10) == 10 && close(100) == 0); /* open yellow */
  fd = open(P("f"), O_RDONLY);
  CHECK(dup3(fd, 101, O_CLOEXEC) == 101);
  CHECK(read(101, t_buf, 40000) == 40000 && close(fd) == 0 && close(101) == 0); /* open green */
  fd = open(P("f"), O_RDONLY);
  int b = fcntl(fd, F_DUPFD, 200);
  CHECK(b >= 200 && read(b, t_buf, 5) == 5 && close(fd) == 0 && close(b) == 0); /* open yellow */
  fd = open(P("f"), O_RDONLY);
  int c = fcntl(fd, F_DUPFD_CLOEXEC, 300);
  CHECK(c >= 300 && close(fd) == 0 && close(c) == 0); /* open red */
  int fa = open(P("f"), O_RDONLY);
  int fb = open(P("f"), O_RDONLY);
  CHECK(fa >= 0 && fb >= 0 && read(fa, t_buf, 40000) == 40000);
  CHECK(dup2(fb, fa) == fa);                         /* fa's open decided now: green */
  CHECK(read(fa, t_buf, 10) == 10 && close(fa) == 0 && close(fb) == 0); /* fb's open: yellow */
  return 0;
}
