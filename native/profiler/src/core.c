/*
 * Initialisation: the process-wide configuration (read by config.c from the environment) and state, filled once,
 * from the constructor or lazily from the first wrapper that runs (a wrapper may run before our
 * constructor). The other concerns live in files of their own (docs/architecture.md, "The profiler").
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "config.h"
#include "jobio.h"

struct jobio_config jobio_cfg = {
    .small = JOBIO_DEFAULT_SMALL_THRESHOLD,
    .large = JOBIO_DEFAULT_LARGE_THRESHOLD,
    .sample_every = JOBIO_DEFAULT_SAMPLE_EVERY,
    .timeframe_ns = 10000000000ull,
};
struct jobio_state jobio_g;

/* ---------------- init ---------------- */
void jobio_init(int from_constructor) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&jobio_g.init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  int saved = errno;
  jobio_t.busy++;
  jobio_resolve_all();
  jobio_read_config();
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
  jobio_t.busy--;
  errno = saved;
}

__attribute__((constructor)) static void jobio_constructor(void) { jobio_init(1); }
