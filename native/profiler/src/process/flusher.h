/* The flush thread (flusher.c): snapshots at the end of each time frame, for processes gone quiet. */
#ifndef JOBIO_FLUSHER_H
#define JOBIO_FLUSHER_H
#include "base/common.h"
#include "base/state.h"

#pragma GCC visibility push(hidden)

void jobio_flusher_start(void);
/* Before a credential change: end this process's flush thread (joined, at most 2 s) and start none
 * again; errno kept. A call from a signal handler that interrupted the joining call on the same
 * thread waits only for the thread's end, not for the join (which resumes after the handler). */
void jobio_flusher_stop(void);
/* A fork child (no threads but the caller) starts its own at its first tick. */
static inline int jobio_flusher_missing(void) {
  return JOBIO_UNLIKELY(jobio_cfg.flush_thread) && __atomic_load_n(&jobio_g.flusher_pid, __ATOMIC_RELAXED) != jobio_g.pid;
}
static inline void jobio_flusher_check(void) {
  if (jobio_flusher_missing()) jobio_flusher_start();
}

#pragma GCC visibility pop
#endif /* JOBIO_FLUSHER_H */
