/* Dies by SIGKILL without doing any I/O (no destructor, no final snapshot); with "fork", a child
 * does the same first. Only the start-up PROCESS frame can tell the receiver these processes existed. */
#include <signal.h>
#include <sys/wait.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  if (argc > 2 && strcmp(argv[2], "fork") == 0) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) kill(getpid(), SIGKILL);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
  }
  kill(getpid(), SIGKILL);
  return 0;
}
