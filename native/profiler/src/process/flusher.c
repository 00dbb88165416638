/*
 * The flush thread (JOBIO_FLUSH_THREAD=1; `jobio run` sets it). A process that stops making calls
 * (reads its input, then computes) would send what it counted only at its next call or at its end,
 * so its I/O would land in a later time frame. This thread sends a snapshot just before the end of
 * each frame (frames counted from JOBIO_FRAME_ORIGIN_NS, the receiver's start, else the process
 * start), so the counts reach the frame they belong to. It blocks every signal (it never takes one
 * meant for the program), holds the guard (nothing it does is counted), sleeps between frames and
 * never waits for the program: the flush lock is only tried.
 */
#include "process/flusher.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "base/log.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fork.h"

/* how long before a frame's end the snapshot is taken: what happens in that last moment goes to
 * the next frame; a snapshot taken late (the thread woke after the end) is stamped just before the
 * end it was meant for, unless it is half a frame late (then it is simply the next frame's) */
#define JOBIO_FLUSH_LEAD_NS 20000000ull

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
    struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
    uint64_t end = at + lead;
    jobio_t.stamp_before = jobio_now_real() < end + tf / 2 ? end : 0;
    jobio_flush_periodic(0);
    jobio_t.stamp_before = 0;
  }
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
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 256 * 1024);
    r = pthread_create(&th, &a, jobio_flusher_main, NULL);
    pthread_attr_destroy(&a);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) jobio_log_line("no flush thread (snapshots at the next call instead): pthread_create failed:", NULL, r, 1);
  jobio_t.busy--;
  errno = saved;
}
