/*
 * The end of a process: the destructor (exit(), return from main) and the final snapshot, also
 * sent by the _exit and exec wrappers (wrap_proc.c). Whatever is still pending is decided first:
 * the opens still open, the stats never followed by an open, the stdio buffers exit() will flush.
 */
#include "wrap/exit.h"

#include "base/state.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/flush.h"
#include "process/fork.h"
#include "process/stattab.h"
#include "process/thread.h"
#include "wrap/wrap_stdio.h"

/* Exit, _exit or exec: decide everything still pending, then send the last snapshot. */
void jobio_flush_final(uint32_t flags) {
  struct jobio_tls *t = &jobio_t;
  int saved = errno;
  /* Already inside the profiler on this thread: a signal handler interrupted it (e.g. exit() from
   * a handler during a periodic flush, which holds the flush lock). Waiting for the lock would
   * wait for ourselves: only send if nobody holds it. */
  int nested = (t->busy & 0xffffu) != 0;
  t->busy++;
  jobio_check_pid();
  if (!t->block && !t->exiting) {
    jobio_set_block(t, jobio_block_claim());
  }
  struct jobio_block *b = t->block;
  if (!b) {
    /* thread past its TLS destructor: borrow any block for the last counts */
    b = jobio_blocks_head();
  }
  if (jobio_g.exiting_normally && b == t->block) jobio_stdio_exit(b);
  if (flags & JOBIO_FLAG_FINAL) __atomic_store_n(&jobio_g.ended, 1, __ATOMIC_RELEASE);
  jobio_fds_finalize(b);
  jobio_stats_finalize(b);
  jobio_flush_send(flags, !nested);
  t->busy--;
  errno = saved;
}

/* Normal exit (exit(), return from main): the final snapshot. */
__attribute__((destructor)) static void jobio_destructor(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  if (jobio_t.busy & JOBIO_BUSY_VFORK) return;
  jobio_g.exiting_normally = 1; /* exit() flushes the stdio buffers after us */
  jobio_flush_final(JOBIO_FLAG_FINAL);
}
