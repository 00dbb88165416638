/*
 * Snapshots (flush.c): the cumulative totals of every thread block, one PROCESS frame and one MOUNT
 * frame per mount with activity, built under the flush lock and handed to the transport.
 */
#ifndef JOBIO_FLUSH_H
#define JOBIO_FLUSH_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

/* A snapshot under the flush lock: waits for it (wait), or gives up when another thread holds it. */
void jobio_flush_send(uint32_t flags, int wait);
void jobio_flush_hello(void);
void jobio_flush_after_fork(void);
/* The parts of the periodic snapshot (jobio_flush_periodic, fork.c): the lock, taken only if free
 * (1: taken), and the snapshot sent under it. */
int jobio_flush_trylock(void);
void jobio_flush_locked(uint32_t flags);
void jobio_flush_unlock(void);
/* When a timed call must call the tick (account/sampling.c): the next snapshot's time, or at once
 * with a sampling cap (its window). */
void jobio_set_next_tick(void);

#pragma GCC visibility pop
#endif /* JOBIO_FLUSH_H */
