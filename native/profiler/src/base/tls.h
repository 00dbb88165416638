/*
 * The per-thread record (tls.c), initial-exec TLS: one %fs-relative access, no __tls_get_addr. Every
 * layer reads it: the guard that makes the library's own wrapped calls uncounted (here), the block
 * a thread counts into (process/thread.c), its sampling state (account/sampling.c), its last device
 * lookup (process/mounts.c) and the vfork wrapper's return address (wrap/wrap_proc.c).
 */
#ifndef JOBIO_TLS_H
#define JOBIO_TLS_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

struct jobio_block; /* process/thread.h */

struct jobio_tls {
  struct jobio_block *block; /* NULL until the thread's first counted call */
  uint32_t busy;             /* low 16 bits: guard depth; JOBIO_BUSY_VFORK: inside vfork; JOBIO_BUSY_NOBLOCK:
                                no block yet (or any more), so "busy == 0" alone means "count this call" */
  uint32_t exiting;          /* thread is past its TLS destructor: forward uncounted */
  uint64_t countdown;        /* calls until the next timed one, that one included */
  uint64_t gap_weight;       /* weight (1/p = the stratum length) of the upcoming timed call */
  uint64_t stratum_left;     /* calls of the current stratum from its timed call on, that call included (>= 1) */
  uint64_t rng;              /* LCG state for the position of the timed call in a stratum */
  uint64_t period;           /* stratum length for the strata started from now on (sample_every) */
  uint64_t win_start;        /* JOBIO_SAMPLE_MAX_PER_SEC window: start and timed calls in it */
  uint64_t win_sampled;
  uint64_t dev_cache;        /* last st_dev looked up, its slot, and the mount generation */
  int32_t dev_cache_slot;
  uint32_t dev_cache_gen;
  uint64_t vfork_ret; /* the vfork wrapper keeps its return address here (not on the shared stack) */
  uint32_t collective; /* inside MPI_File_open: the opens it makes are collective (wrap/wrap_mpi.c) */
  uint64_t stamp_before; /* the flush thread's snapshot belongs to the frame ending here (process/flusher.c) */
  uint64_t last_dt;      /* the measured duration (ns) of the thread's last timed call, for the maxima */
  uint32_t mpi_io;       /* depth inside MPI_File_* calls: their calls are the MPI-IO library's (wrap/wrap_mpi.c) */
  uint32_t mpi_runtime;  /* depth inside MPI_Init/MPI_Finalize (wrap/wrap_mpi.c): a fork child keeps only its
                            forking thread's share of jobio_g.mpi_runtime (process/fork.c) */
  uint64_t sqlite_dir;   /* the hash of the directory SQLite opens to sync a journal this thread opened
                            (0: none awaited; process/mounts.c, jobio_component_other) */
  uint64_t read_want;    /* the bytes the thread's read in progress asked for (wrap/wrap_posix.c): kept before
                            the call, where the exported wrapper has the thread's record at hand, rather than
                            in a register saved across it. A signal handler's read between the two may
                            replace it: one read then taken for short or not, never more. */
};
#define JOBIO_TLS_VFORK_RET 88 /* offsetof(struct jobio_tls, vfork_ret), used by the vfork wrapper (asm) */
#define JOBIO_BUSY_VFORK 0x10000u
#define JOBIO_BUSY_NOBLOCK 0x20000u /* set in the TLS image: every new thread starts with it */
static inline void jobio_set_block(struct jobio_tls *t, struct jobio_block *b) {
  t->block = b;
  if (b)
    t->busy &= ~JOBIO_BUSY_NOBLOCK;
  else
    t->busy |= JOBIO_BUSY_NOBLOCK;
}
extern __thread struct jobio_tls jobio_t __attribute__((tls_model("initial-exec")));

/* The per-thread guard: wrapped calls made while it is held (by the library itself, or by dlsym and
 * the allocator it calls) are forwarded uncounted. */
void jobio_guard_enter(void);
void jobio_guard_leave(void);

#pragma GCC visibility pop
#endif /* JOBIO_TLS_H */
