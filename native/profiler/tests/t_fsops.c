/* delete and fschange: yellow on success, red on failure. Files f, e, e2 exist.
 *   fschange yellow 14, red 5; delete yellow 3, red 2; open green 1 (fchmod and ftruncate through it: what it was opened for), close green 1 */
#include <stdio.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(mkdir(P("d1"), 0755) == 0);
  CHECK(mkdir(P("d1"), 0755) == -1 && errno == EEXIST);
  CHECK(mkdirat(AT_FDCWD, P("d2"), 0755) == 0);
  CHECK(rmdir(P("d2")) == 0);
  CHECK(rmdir(P("d2")) == -1);
  CHECK(chmod(P("f"), 0600) == 0);
  CHECK(chmod(P("missing"), 0600) == -1);
  int fd = open(P("f"), O_RDWR);
  CHECK(fd >= 0);
  CHECK(fchmod(fd, 0644) == 0);
  CHECK(fchmodat(AT_FDCWD, P("f"), 0644, 0) == 0);
  CHECK(truncate(P("f"), 10) == 0);
  CHECK(truncate(P("missing"), 10) == -1);
  CHECK(ftruncate(fd, 5) == 0);
  CHECK(ftruncate64(fd, 6) == 0);
  CHECK(truncate64(P("f"), 7) == 0);
  CHECK(close(fd) == 0);
  CHECK(rename(P("f"), P("g")) == 0);
  CHECK(rename(P("missing"), P("x")) == -1);
  CHECK(renameat(AT_FDCWD, P("g"), AT_FDCWD, P("h")) == 0);
  CHECK(renameat2(AT_FDCWD, P("h"), AT_FDCWD, P("f"), 0) == 0);
  CHECK(unlink(P("f")) == 0);
  CHECK(unlink(P("f")) == -1);
  CHECK(unlinkat(AT_FDCWD, P("d1"), AT_REMOVEDIR) == 0);
  CHECK(unlinkat(AT_FDCWD, P("e"), 0) == 0);
  CHECK(remove(P("e2")) == 0);
  CHECK(remove(P("missing")) == -1);
  return 0;
}
