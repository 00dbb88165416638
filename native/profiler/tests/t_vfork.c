/* vfork and posix_spawn: the vfork child runs on the parent's memory and must not touch the
 * profiler's state (no counts, no flush of the parent's data under the child's pid).
 * Parent (the only t_vfork process): write red 6, create yellow 1, close green 1. */
#include <spawn.h>
#include <sys/wait.h>

#include "t_util.h"

extern char **environ;

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, t_buf, 10) == 10 && write(fd, t_buf, 10) == 10);
  pid_t pid = vfork();
  if (pid == 0) {
    /* the child's calls go through the wrappers but must be forwarded untouched */
    char *args[] = {"true", NULL};
    execve("/bin/true", args, environ);
    _exit(127);
  }
  CHECK(pid > 0);
  int st;
  CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  for (int i = 0; i < 3; i++) CHECK(write(fd, t_buf, 10) == 10);
  pid = vfork();
  if (pid == 0) {
    if (write(fd, t_buf, 10) != 10) _exit(1); /* a write in the child: not the parent's count */
    _exit(7);
  }
  CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 7);
  char *args[] = {"true", NULL};
  CHECK(posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) == 0);
  CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  CHECK(write(fd, t_buf, 10) == 10);
  CHECK(close(fd) == 0);
  return 0;
}
