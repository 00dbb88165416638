/* The time estimate and its bound (timebound.c), applied by the flush under its lock. */
#ifndef JOBIO_TIMEBOUND_H
#define JOBIO_TIMEBOUND_H
#include "process/thread.h"

#pragma GCC visibility push(hidden)

void jobio_timebound_update(uint64_t sent_slots, uint64_t thread_time);
void jobio_timebound_fill(int slot, struct jobio_mstats *m);
void jobio_timebound_reset(void);

#pragma GCC visibility pop
#endif /* JOBIO_TIMEBOUND_H */
