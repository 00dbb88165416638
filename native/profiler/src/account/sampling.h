/*
 * The sampling decision: which counted calls are timed. Inline here, the per-call countdown and the
 * start of a timed call; out of line (sampling.c), a thread's first stratum, the
 * JOBIO_SAMPLE_MAX_PER_SEC window and the tick that starts the periodic flush.
 */
#ifndef JOBIO_SAMPLING_H
#define JOBIO_SAMPLING_H
#include "account/count.h"
#include "base/common.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"

#pragma GCC visibility push(hidden)

/*
 * Duration sampling, stratified: the calls of a thread are cut into strata of `period` consecutive
 * calls and one call per stratum, at a position drawn uniformly in [0, period), is timed. Every
 * call is therefore timed with probability exactly 1/period and its duration weighted by period
 * (Horvitz-Thompson) is an unbiased estimate of the time of the calls it stands for; the number
 * of timed calls among N consecutive calls is floor(N/period) or ceil(N/period). A period change
 * (JOBIO_SAMPLE_MAX_PER_SEC) applies from the next stratum on, whose weight it is.
 * Returns the calls until the next timed one: the rest of this stratum (stratum_left: its length
 * less the position of its timed call), then the position in the next. Runs once per timed call:
 * with period 1 a load and two stores; otherwise an LCG step and a multiply (no floating point).
 */
JOBIO_HOT uint64_t jobio_next_gap_inline(struct jobio_tls *t) {
  uint64_t len = t->period;
  uint64_t gap = t->stratum_left;
  t->gap_weight = len;
  if (len == 1) { /* every call timed: position 0 */
    t->stratum_left = 1;
    return gap;
  }
  /* a 64-bit LCG step (increment 1: odd, so the full period 2^64 is kept); its high bits, the
   * ones a multiply-high keeps, are the good ones */
  uint64_t x = t->rng * 6364136223846793005ull + 1;
  t->rng = x;
  uint64_t pos = (uint64_t)(((unsigned __int128)x * len) >> 64); /* uniform in [0, len) */
  t->stratum_left = len - pos;
  return gap + pos;
}

/*
 * Is this counted call timed? Calls are cut into strata of `period` consecutive calls (per thread)
 * and exactly one call per stratum, at a uniformly drawn position, is timed: each call is timed
 * with probability exactly 1/period, and its duration weighted by period is an unbiased estimate
 * (jobio_next_gap). One decrement per call.
 */
JOBIO_HOT int jobio_timed_now(struct jobio_tls *t) { return JOBIO_UNLIKELY(--t->countdown == 0); }

/* The timed call starts: its weight, the next gap, and the start time. */
JOBIO_HOT void jobio_start_timed(struct jobio_ctx *c) {
  struct jobio_tls *t = c->t;
  c->w = t->gap_weight;
  t->countdown = jobio_next_gap_inline(t);
  c->t0 = jobio_now();
}

JOBIO_HOT void jobio_start(struct jobio_ctx *c) {
  if (jobio_timed_now(c->t)) jobio_start_timed(c);
}

extern uint64_t jobio_period_base; /* the configured stratum length (JOBIO_SAMPLE_EVERY) */
void jobio_sampling_start(struct jobio_tls *t); /* a thread's sampling state, at its first counted call */
uint64_t jobio_next_gap(struct jobio_tls *t);
void jobio_sample_window(struct jobio_tls *t, uint64_t now);
void jobio_tick(uint64_t now, int timed);
int64_t jobio_tick_ret(uint64_t now, int64_t r); /* jobio_tick(now, 1), then r (for tail calls) */

/* After a timed call: a flush due? (and the JOBIO_SAMPLE_MAX_PER_SEC window, when set) */
JOBIO_HOT void jobio_after(uint64_t t1) {
  if (t1 && JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) jobio_tick(t1, 1);
}

#pragma GCC visibility pop
#endif /* JOBIO_SAMPLING_H */
