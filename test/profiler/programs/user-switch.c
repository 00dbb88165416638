/* Run as root by test/profiler/run-user-switch.test.ts: children that change user (become nobody).
 *   argv[1]: a directory only root may enter.
 * 1. A child says hello as root (at fork), becomes nobody, fails to open a root-only file (EACCES)
 *    and exits at once: its calls reach jobio run on the connection it opened as root.
 * 2. A child becomes nobody and execs true: the new image connects as nobody, which jobio run's
 *    private socket refuses; jobio run names it as run by another user. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

static int become_nobody(void) { return setgid(NOBODY) == 0 && setuid(NOBODY) == 0 ? 0 : -1; }

static int waited(pid_t pid) {
  int st;
  return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  char secret[4096];
  snprintf(secret, sizeof secret, "%s/secret", argv[1]);
  int fd = open(secret, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0 || write(fd, "root only\n", 10) != 10 || close(fd) != 0) return 3;
  pid_t pid = fork();
  if (pid < 0) return 4;
  if (pid == 0) {
    if (become_nobody() != 0) _exit(98);
    _exit(open(secret, O_RDONLY) < 0 && errno == EACCES ? 0 : 97);
  }
  if (waited(pid) != 0) return 5;
  pid = fork();
  if (pid < 0) return 6;
  if (pid == 0) {
    if (become_nobody() != 0) _exit(98);
    execl("/bin/true", "true", (char *)NULL);
    _exit(96);
  }
  if (waited(pid) != 0) return 7;
  printf("done\n");
  return 0;
}
