/*
 * The sampling decision's slow parts: a thread's first stratum, the JOBIO_SAMPLE_MAX_PER_SEC window
 * that lengthens the strata of a thread calling faster than the cap, and the tick that starts the
 * periodic flush. The per-call countdown is inline (jobio_next_gap_inline in sampling.h).
 */
#include "account/sampling.h"

#include <sys/syscall.h>

#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/flush.h"
#include "process/flusher.h"
#include "process/fork.h"

uint64_t jobio_period_base = JOBIO_DEFAULT_SAMPLE_EVERY;

/* The next gap out of line (see jobio_next_gap_inline). */
uint64_t jobio_next_gap(struct jobio_tls *t) { return jobio_next_gap_inline(t); }

static void jobio_set_rate(struct jobio_tls *t, uint64_t period) { t->period = period ? period : 1; }

void jobio_sampling_start(struct jobio_tls *t) {
  uint64_t seed = jobio_now() ^ ((uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull) ^ (uint64_t)syscall(SYS_gettid) << 32;
  t->rng = seed ? seed : 0x2545f4914f6cdd1dull;
  jobio_set_rate(t, jobio_period_base);
  t->stratum_left = 1; /* (no stratum before the first: its first call is position 0) */
  t->countdown = jobio_next_gap(t);
  t->win_start = jobio_now();
  t->win_sampled = 0;
  t->dev_cache_gen = 0;
}

void jobio_sample_window(struct jobio_tls *t, uint64_t now) {
  t->win_sampled++;
  if (now - t->win_start < 1000000000ull) return;
  /* calls in the window, estimated without a per-call counter: timed calls x period */
  double calls = (double)t->win_sampled * (double)t->period;
  double secs = (double)(now - t->win_start) / 1e9;
  double rate = calls / secs; /* calls per second in the last window */
  uint64_t period = jobio_period_base;
  if (rate / (double)period > (double)jobio_cfg.max_per_sec) {
    /* the next strata time one call in ceil(rate / cap); decided before their calls, so the
     * weight (the stratum length) keeps the estimate unbiased */
    double want = rate / (double)jobio_cfg.max_per_sec;
    period = want >= 4e18 ? (uint64_t)4e18 : (uint64_t)want;
    if ((double)period < want) period++;
    if (period < jobio_period_base) period = jobio_period_base;
  }
  jobio_set_rate(t, period); /* for the strata started from now on */
  t->win_start = now;
  t->win_sampled = 0;
}

void jobio_tick(uint64_t now, int timed) {
  struct jobio_tls *t = &jobio_t;
  jobio_flusher_check();
  if (jobio_cfg.max_per_sec && t->block && timed) jobio_sample_window(t, now);
  uint64_t due = __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED);
  if (now < due) return;
  if (!__atomic_compare_exchange_n(&jobio_g.next_flush_ns, &due, now + jobio_cfg.timeframe_ns, 0, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED))
    return;
  jobio_set_next_tick();
  int saved = errno;
  t->busy++;
  jobio_flush_periodic(0);
  t->busy--;
  errno = saved;
}

int64_t jobio_tick_ret(uint64_t now, int64_t r) {
  jobio_tick(now, 1);
  return r;
}
