/* The end of a process (exit.c): the final snapshot at exit, _exit and exec. */
#ifndef JOBIO_EXIT_H
#define JOBIO_EXIT_H
#include "thread.h"

#pragma GCC visibility push(hidden)

/* Decide everything still pending, then send the last snapshot (flags: FINAL or EXEC). */
void jobio_flush_final(uint32_t flags);
/* The flush of every stdio stream that exit() does after our destructor (wrap_stdio.c). */
void jobio_stdio_exit(struct jobio_block *b);

#pragma GCC visibility pop
#endif /* JOBIO_EXIT_H */
