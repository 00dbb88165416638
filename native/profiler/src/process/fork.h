/* Fork (fork.c): a child is a process of its own, with its own counts, descriptors and connection. */
#ifndef JOBIO_FORK_H
#define JOBIO_FORK_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

void jobio_fork_handlers_install(void);
/* A child made without fork handlers (_Fork, clone): noticed at flush time by its pid. */
void jobio_check_pid(void);
/* The periodic snapshot (the tick, account/sampling.c): skipped when another thread is flushing. */
void jobio_flush_periodic(uint32_t flags);

#pragma GCC visibility pop
#endif /* JOBIO_FORK_H */
