/*
 * The sampling decision's slow parts (sampling.c): a thread's first stratum, the next gap out of
 * line, the JOBIO_SAMPLE_MAX_PER_SEC window, and the tick that starts the periodic flush. The per
 * call part (the countdown) is inline in hot.h.
 */
#ifndef JOBIO_SAMPLING_H
#define JOBIO_SAMPLING_H
#include "thread.h"

#pragma GCC visibility push(hidden)

extern uint64_t jobio_period_base; /* the configured stratum length (JOBIO_SAMPLE_EVERY) */
void jobio_sampling_start(struct jobio_tls *t); /* a thread's sampling state, at its first counted call */
uint64_t jobio_next_gap(struct jobio_tls *t);
void jobio_sample_window(struct jobio_tls *t, uint64_t now);
void jobio_set_next_tick(void);
void jobio_tick(uint64_t now, int timed);
int64_t jobio_tick_ret(uint64_t now, int64_t r); /* jobio_tick(now, 1), then r (for tail calls) */

#pragma GCC visibility pop
#endif /* JOBIO_SAMPLING_H */
