/* exec: the image about to be replaced flushes first (JOBIO_FLAG_EXEC), with its pending opens
 * decided. phase 1: create f, write red 10 (1000 bytes, f left open: create yellow at exec), then
 * execv(self, phase2). phase 2 (same pid, new start time): create g, write red 3, close green 1. */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  if (argc >= 3 && strcmp(argv[2], "phase2") == 0) {
    t_create_write_close("g", 3, 10);
    return 0;
  }
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 10; i++) CHECK(write(fd, t_buf, 100) == 100);
  char *args[] = {argv[0], argv[1], "phase2", NULL};
  execv("/proc/self/exe", args);
  return 98;
}
