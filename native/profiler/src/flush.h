/*
 * Snapshots (flush.c): the cumulative totals of every thread block, one PROCESS frame and one MOUNT
 * frame per mount with activity, built under the flush lock and handed to the transport.
 */
#ifndef JOBIO_FLUSH_H
#define JOBIO_FLUSH_H
#include "common.h"

#pragma GCC visibility push(hidden)

void jobio_flush(uint32_t flags); /* periodic: skipped when another thread is flushing */
/* A snapshot under the flush lock: waits for it (wait), or gives up when another thread holds it. */
void jobio_flush_send(uint32_t flags, int wait);
void jobio_flush_hello(void);
void jobio_flush_after_fork(void);

#pragma GCC visibility pop
#endif /* JOBIO_FLUSH_H */
