/* Review: a set*id call made by a signal handler that interrupted another set*id call on the same
 * thread while that outer call waits for the flush thread to end (JOBIO_FLUSH_THREAD=1). The signal
 * is raised from inside the outer call's join, through an interposed pthread_timedjoin_np. The join
 * cannot end before the handler returns, so the nested call must not wait for it (it is bounded by
 * 2 s; the flush thread itself ends in microseconds once asked). Both changes must reach the kernel.
 * Prints whether the nested call returned at once (under 1 s) and how long it took on stderr.
 * Needs root (exits 77 otherwise). Built with -rdynamic so that our pthread_timedjoin_np
 * interposes on libjobio's. */
#include <dirent.h>
#include <dlfcn.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include "t_util.h"

#define OUTER_GID 4321
#define NESTED_GID 1234

static volatile sig_atomic_t armed, nested_done;
static int nested_rc;
static long nested_gid, nested_ns;

int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *at) {
  static int (*real)(pthread_t, void **, const struct timespec *);
  if (!real) real = (int (*)(pthread_t, void **, const struct timespec *))dlsym(RTLD_NEXT, "pthread_timedjoin_np");
  if (armed) {
    armed = 0;
    raise(SIGUSR1); /* delivered before raise returns: the outer call is inside its join */
  }
  return real(th, ret, at);
}

static long mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void on_usr1(int sig) {
  (void)sig;
  int saved = errno;
  long t0 = mono_ns();
  nested_rc = setgid(NESTED_GID);
  nested_ns = mono_ns() - t0;
  nested_gid = syscall(SYS_getgid); /* the kernel's, not a cached value */
  nested_done = 1;
  errno = saved;
}

static int tasks(void) {
  DIR *d = opendir("/proc/self/task");
  CHECK(d != NULL);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  closedir(d);
  return n;
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  if (geteuid() != 0) return 77;
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  CHECK(sigaction(SIGUSR1, &sa, NULL) == 0);
  CHECK(tasks() == 2); /* this thread and the flush thread */
  armed = 1;
  gid_t outer = OUTER_GID;
  CHECK(setgroups(1, &outer) == 0);
  CHECK(nested_done);
  CHECK(nested_rc == 0);
  CHECK(nested_gid == NESTED_GID);
  /* after both: the process's kernel credentials, and the flush thread gone */
  CHECK(syscall(SYS_getgid) == NESTED_GID);
  gid_t now[4];
  CHECK(getgroups(4, now) == 1 && now[0] == OUTER_GID);
  CHECK(tasks() == 1);
  fprintf(stderr, "nested setgid took %.3f s\n", nested_ns / 1e9);
  printf("nested setgid in the join: %s\n", nested_ns < 1000000000L ? "returned at once" : "waited");
  return 0;
}
