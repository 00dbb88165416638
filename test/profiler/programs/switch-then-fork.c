/* Run as root by test/profiler/run-user-switch.test.ts: a process that becomes nobody itself and
 * then forks argv[2] children, each of which opens a file of argv[1] (the world-readable file `data`)
 * and exits. The parent's own connection was made as root, before the switch; each child, forked
 * after it, connects as nobody, which jobio run's private socket refuses: none of the children is
 * profiled, and jobio run must say how many there were. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int children = atoi(argv[2]);
  char data[4096];
  snprintf(data, sizeof data, "%s/data", argv[1]);
  if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0) return 3;
  for (int i = 0; i < children; i++) {
    pid_t pid = fork();
    if (pid < 0) return 4;
    if (pid == 0) {
      int fd = open(data, O_RDONLY);
      _exit(fd >= 0 && close(fd) == 0 ? 0 : 97);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 5;
  }
  printf("done\n");
  return 0;
}
