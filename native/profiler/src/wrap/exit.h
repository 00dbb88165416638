/* The end of a process (exit.c): the final snapshot at exit, _exit and exec. */
#ifndef JOBIO_EXIT_H
#define JOBIO_EXIT_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

/* Decide everything still pending, then send the last snapshot (flags: FINAL or EXEC). */
void jobio_flush_final(uint32_t flags);

#pragma GCC visibility pop
#endif /* JOBIO_EXIT_H */
