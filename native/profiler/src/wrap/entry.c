/*
 * The library's entry: the initialisation that fills the process-wide configuration (read by
 * base/config.c from the environment) and state, once, from the constructor or lazily from the
 * first wrapper that runs (a wrapper may run before our constructor); and the slow half of the gate
 * every wrapper passes (entry.h), which gives a thread its block at its first counted call. The
 * layers below are laid out in docs/architecture.md ("How the native code is laid out").
 */
#include "wrap/entry.h"

#include "account/binoff.h"
#include "account/sampling.h"
#include "base/config.h"
#include "base/log.h"
#include "base/real.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/flush.h"
#include "process/flusher.h"
#include "process/fork.h"
#include "process/mounts.h"
#include "process/session.h"
#include "process/stattab.h"
#include "process/thread.h"

/* ---------------- init ---------------- */
void jobio_init(int from_constructor) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&jobio_g.init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  int saved = errno;
  jobio_t.busy++;
  jobio_resolve_all();
  /* a job started by a Mistral-style script: its first process starts the session (process/session.c);
   * only from the constructor, before main and any thread of the program */
  if (from_constructor) jobio_session_start();
  jobio_read_config();
  jobio_binoff_init();
  jobio_period_base = jobio_cfg.sample_every;
  jobio_read_identity();
  jobio_decide_active();
  jobio_g.pid = jobio_sys_getpid();
  jobio_g.start_rt_ns = jobio_now_real();
  jobio_g.start_mono_ns = jobio_now();
  jobio_g.next_flush_ns = jobio_g.start_mono_ns + jobio_cfg.timeframe_ns;
  jobio_set_next_tick();
  jobio_g.from_constructor = from_constructor;
  if (jobio_cfg.active) {
    jobio_fdtab_init();
    jobio_mounts_init();
    jobio_stats_reset();
    jobio_threads_init();
    jobio_fork_handlers_install();
    if (!jobio_fds) jobio_cfg.active = 0;
  }
  jobio_debug(from_constructor ? "initialised from the constructor" : "initialised lazily from a wrapper",
              jobio_g.exe);
  __atomic_store_n(&jobio_g.init_state, 2, __ATOMIC_RELEASE);
  if (jobio_cfg.active) jobio_flush_hello(); /* met by the receiver while alive (job id verification) */
  if (jobio_cfg.active) jobio_flusher_start();
  jobio_t.busy--;
  errno = saved;
}

__attribute__((constructor)) static void jobio_constructor(void) { jobio_init(1); }

int jobio_begin_slow(void) {
  struct jobio_tls *t = &jobio_t;
  if (t->busy & JOBIO_BUSY_VFORK) {
    /* vfork was called on this thread: in the child (other pid) touch nothing; in the parent
     * (it resumed after the child's exec or _exit) clear the mark. */
    if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || jobio_sys_getpid() != jobio_g.pid) return 0;
    t->busy &= ~JOBIO_BUSY_VFORK;
  }
  if ((t->busy & ~JOBIO_BUSY_NOBLOCK) || t->exiting) return 0;
  if (t->block) return 1;
  int st = __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE);
  if (st == 0) {
    jobio_init(0);
    st = __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE);
  }
  if (st != 2 || !jobio_cfg.active) return 0;
  int saved = errno;
  t->busy++;
  struct jobio_block *b = jobio_block_claim();
  if (b) {
    jobio_sampling_start(t);
    jobio_thread_holds(b);
  }
  t->busy--;
  jobio_set_block(t, b);
  errno = saved;
  return b != NULL;
}
