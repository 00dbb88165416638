/* fork: the child starts clean (own start time, only its own calls), the parent is not double
 * counted. Parent: create 1, write red 10, close 1. Child: write red 5, close green 1 (inherited fd). */
#include <sys/wait.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < 3; i++) CHECK(write(fd, t_buf, 10) == 10);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    for (int i = 0; i < 5; i++) CHECK(write(fd, t_buf, 10) == 10);
    CHECK(close(fd) == 0);
    exit(0);
  }
  int st;
  CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  for (int i = 0; i < 7; i++) CHECK(write(fd, t_buf, 10) == 10);
  CHECK(close(fd) == 0);
  return 0;
}
