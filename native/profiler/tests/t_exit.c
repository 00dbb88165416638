/* _exit / _Exit skip destructors: the wrapper flushes (FINAL) first. write red 4, create yellow 1
 * (decided at exit, f still open). Exits with status 3 through _exit, or _Exit with argv[2] = "Exit". */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 4; i++) CHECK(write(fd, t_buf, 10) == 10);
  if (argc >= 3 && strcmp(argv[2], "Exit") == 0) _Exit(3);
  _exit(3);
}
