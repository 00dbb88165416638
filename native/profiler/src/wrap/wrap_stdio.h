/* What the stdio wrappers (wrap_stdio.c) do for the end of a process (exit.c). */
#ifndef JOBIO_WRAP_STDIO_H
#define JOBIO_WRAP_STDIO_H
#include "process/thread.h"

#pragma GCC visibility push(hidden)

/* The flush of every stdio stream that exit() does after our destructor, counted into block b. */
void jobio_stdio_exit(struct jobio_block *b);

#pragma GCC visibility pop
#endif /* JOBIO_WRAP_STDIO_H */
