/* Programs that close every descriptor or dup2 over ours. Run with JOBIO_SAMPLE_EVERY=1 and
 * JOBIO_TIMEFRAME=1 so that a periodic flush connects the socket first (after a 1.1 s pause).
 * argv[2]: "closefrom", "close_range" or "dup2". The final snapshot must still arrive (reconnect),
 * and in "dup2" mode the file put over our descriptor must not receive a byte from us.
 *   write red 8; closefrom/close_range: close green 1 and create yellow 1 (f, 60 bytes) decided
 *   there; f reopened O_APPEND: open yellow 1 (20 bytes, at exit). dup2 mode: f stays open (create
 *   yellow at exit), o (dup2'd over our socket) create red 1. */
#include <dirent.h>
#include <sys/socket.h>
#include <time.h>

#include "t_util.h"

static int find_own_socket(void) {
  DIR *d = opendir("/proc/self/fd");
  CHECK(d);
  struct dirent *e;
  int found = -1;
  while ((e = readdir(d))) {
    int fd = atoi(e->d_name);
    struct stat st;
    if (fd >= 1000 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) found = fd;
  }
  closedir(d);
  return found;
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc >= 3);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 5; i++) CHECK(write(fd, t_buf, 10) == 10);
  struct timespec ts = {1, 100000000};
  nanosleep(&ts, NULL);
  CHECK(write(fd, t_buf, 10) == 10); /* periodic flush: connects */
  int sock = find_own_socket();
  CHECK(sock >= 1000);
  if (strcmp(argv[2], "closefrom") == 0) {
    closefrom(3);
  } else if (strcmp(argv[2], "close_range") == 0) {
    CHECK(close_range(3, ~0U, 0) == 0);
  } else {
    int o = open(P("o"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(o >= 0 && dup2(o, sock) == sock);
  }
  fd = open(P("f"), O_WRONLY | O_APPEND);
  CHECK(fd >= 0);
  CHECK(write(fd, t_buf, 10) == 10 && write(fd, t_buf, 10) == 10);
  return 0;
}
