/* Review: a signal handler that calls exit() while the profiler is in the middle of a periodic
 * flush on the same thread (here: made certain by raising the signal from inside the flush's
 * sendto, through an interposed syscall(2)). Without the profiler the program exits 0 after its
 * loop; with it, the exit from the handler must not wait for the flush lock its own thread holds.
 * Built with -rdynamic so that our syscall() interposes on libjobio's. */
#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <time.h>

#include "t_util.h"

static volatile sig_atomic_t armed;

long syscall(long n, ...) {
  static long (*real)(long, ...);
  va_list ap;
  va_start(ap, n);
  long a[6];
  for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
  va_end(ap);
  if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  if (n == SYS_sendto && armed) {
    armed = 0;
    raise(SIGUSR1);
  }
  return real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void on_usr1(int sig) {
  (void)sig;
  static const char msg[] = "exit from the handler\n";
  (void)!write(1, msg, sizeof msg - 1);
  exit(0);
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  signal(SIGUSR1, on_usr1);
  int fd = open(P("f"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  armed = 1;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do {
    CHECK(write(fd, t_buf, 16) == 16);
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (t.tv_sec - t0.tv_sec < 3);
  printf("loop done\n");
  return 0;
}
