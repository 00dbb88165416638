/*
 * The flush thread (JOBIO_FLUSH_THREAD=1; `jobio run` sets it). A process that stops making calls
 * (reads its input, then computes) would send what it counted only at its next call or at its end,
 * so its I/O would land in a later time frame. This thread sends a snapshot just before the end of
 * each frame (frames counted from JOBIO_FRAME_ORIGIN_NS, the receiver's start, else the process
 * start), so the counts reach the frame they belong to. It blocks every signal (it never takes one
 * meant for the program), holds the guard (nothing it does is counted), sleeps between frames and
 * never waits for the program: the flush lock is only tried.
 *
 * It ends when the program changes its credentials (jobio_flusher_stop, from the set*id wrappers):
 * glibc applies a set*id call to every thread and aborts the process when one thread's change fails
 * where the caller's succeeded, which happens once the threads' capabilities differ (capset and
 * PR_SET_KEEPCAPS are per thread). The process then goes on as one without a flush thread: its
 * snapshots are sent by its calls as the frames pass, and at its end.
 */
#include "process/flusher.h"

#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#include "base/log.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fork.h"

/* how long before a frame's end the snapshot is taken: what happens in that last moment goes to
 * the next frame; a snapshot taken late (the thread woke after the end) is stamped just before the
 * end it was meant for, unless it is half a frame late (then it is simply the next frame's) */
#define JOBIO_FLUSH_LEAD_NS 20000000ull
/* how long a set*id call waits for the flush thread to end (it only ever sleeps or sends a snapshot,
 * without waiting for anything: in practice microseconds) before going on regardless */
#define JOBIO_FLUSHER_JOIN_NS 2000000000ull

static pthread_t jobio_flusher_th;
static pid_t jobio_flusher_live;   /* the process whose flush thread jobio_flusher_th is, until joined */
static int jobio_flusher_stopping; /* futex word: 1 asks the thread to end */
static int jobio_flusher_left;     /* futex word: 1 once the thread has left its loop (it ends) */
static pid_t jobio_flusher_joiner; /* the thread (kernel id) that joins it: the first to claim it */

/* Wait until the futex word is set or until `at` (wall clock, ns): 1 when set. */
static int jobio_flusher_wait(int *word, uint64_t at) {
  struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
  while (!__atomic_load_n(word, __ATOMIC_ACQUIRE)) {
    long r = syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
    if (r != 0 && errno == ETIMEDOUT) return 0;
  }
  return 1;
}

static void *jobio_flusher_main(void *arg) {
  (void)arg;
  jobio_t.busy++;
  const uint64_t tf = jobio_cfg.timeframe_ns;
  const uint64_t lead = tf / 10 < JOBIO_FLUSH_LEAD_NS ? tf / 10 : JOBIO_FLUSH_LEAD_NS;
  const uint64_t origin = jobio_cfg.frame_origin_ns ? jobio_cfg.frame_origin_ns : jobio_g.start_rt_ns;
  for (;;) {
    uint64_t now = jobio_now_real();
    /* the next frame end minus the lead that is still ahead */
    uint64_t k = now + lead >= origin ? (now + lead - origin) / tf + 1 : 0;
    uint64_t at = origin + k * tf - lead;
    if (jobio_flusher_wait(&jobio_flusher_stopping, at)) break;
    uint64_t end = at + lead;
    jobio_t.stamp_before = jobio_now_real() < end + tf / 2 ? end : 0;
    jobio_flush_periodic(0);
    jobio_t.stamp_before = 0;
  }
  __atomic_store_n(&jobio_flusher_left, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &jobio_flusher_left, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
  return NULL;
}

void jobio_flusher_start(void) {
  if (!jobio_cfg.flush_thread || !jobio_cfg.active || !jobio_cfg.socket_path[0] || jobio_cfg.timeframe_ns >= (1ull << 62))
    return;
  pid_t pid = jobio_g.pid;
  pid_t was = __atomic_load_n(&jobio_g.flusher_pid, __ATOMIC_RELAXED);
  if (was == pid || !__atomic_compare_exchange_n(&jobio_g.flusher_pid, &was, pid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return;
  int saved = errno;
  jobio_t.busy++;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits the full mask */
  pthread_attr_t a;
  pthread_t th;
  int r = pthread_attr_init(&a);
  if (r == 0) {
    pthread_attr_setstacksize(&a, 256 * 1024);
    r = pthread_create(&th, &a, jobio_flusher_main, NULL); /* joinable: jobio_flusher_stop joins it */
    pthread_attr_destroy(&a);
  }
  if (r == 0) {
    jobio_flusher_th = th;
    __atomic_store_n(&jobio_flusher_live, pid, __ATOMIC_RELEASE);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) jobio_log_line("no flush thread (snapshots at the next call instead): pthread_create failed:", NULL, r, 1);
  jobio_t.busy--;
  errno = saved;
}

void jobio_flusher_stop(void) {
  pid_t self = jobio_sys_getpid();
  /* a vfork child runs on our memory: the thread and the setting are the parent's */
  if ((jobio_t.busy & JOBIO_BUSY_VFORK) && self != jobio_g.pid) return;
  /* from now on this process (and a child it forks) starts none */
  __atomic_store_n(&jobio_cfg.flush_thread, 0, __ATOMIC_RELAXED);
  pid_t pid = __atomic_load_n(&jobio_flusher_live, __ATOMIC_ACQUIRE);
  if (!pid || pid != self) return; /* none runs in this process (a fork child's is not started yet) */
  int saved = errno;
  uint64_t deadline = jobio_now_real() + JOBIO_FLUSHER_JOIN_NS;
  /* asked by every call, not only the joiner's: a signal handler may interrupt that one before it
   * asks, and then wait below for an end nobody asked for */
  __atomic_store_n(&jobio_flusher_stopping, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &jobio_flusher_stopping, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  pid_t tid = (pid_t)syscall(SYS_gettid);
  pid_t joiner = 0;
  if (__atomic_compare_exchange_n(&jobio_flusher_joiner, &joiner, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
    int r = pthread_timedjoin_np(jobio_flusher_th, NULL, &ts);
    if (r != 0) jobio_log_line("flush thread not ended before a credential change (glibc may abort it):", NULL, r, 1);
    __atomic_store_n(&jobio_flusher_live, 0, __ATOMIC_RELEASE);
    syscall(SYS_futex, &jobio_flusher_live, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
  } else if (joiner == tid) {
    /* a signal handler on the joining thread: that join goes on only once this call returns, so
     * wait for the thread's own end instead (it never waits for the program: microseconds) */
    jobio_flusher_wait(&jobio_flusher_left, deadline);
  } else {
    /* another thread is ending it: wait for that, as long as it may take */
    struct timespec tick = {0, 10000000};
    while (__atomic_load_n(&jobio_flusher_live, __ATOMIC_ACQUIRE) == pid && jobio_now_real() < deadline)
      syscall(SYS_futex, &jobio_flusher_live, FUTEX_WAIT_PRIVATE, pid, &tick, NULL, 0);
  }
  errno = saved;
}
