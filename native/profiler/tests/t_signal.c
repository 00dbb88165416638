/* A signal handler doing I/O while the main loop does I/O (a 200 us interval timer): every call is
 * counted exactly once. Prints the number of handler writes; expected write red = 20000 + that. */
#include <signal.h>
#include <sys/time.h>

#include "t_util.h"

static int sig_fd;
static volatile sig_atomic_t handled;

static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  if (write(sig_fd, "s", 1) == 1) handled++;
  errno = saved;
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("main"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  sig_fd = open(P("sig"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0 && sig_fd >= 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
  struct itimerval it = {{0, 200}, {0, 200}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  for (int i = 0; i < 20000; i++) CHECK(write(fd, t_buf, 16) == 16);
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  printf("%d\n", (int)handled);
  return 0;
}
