/*
 * Per-thread state (thread.c): the accumulation blocks that hold the counters, the initial-exec TLS
 * record of every thread, and the slow path that gives a thread its block at its first counted call.
 */
#ifndef JOBIO_THREAD_H
#define JOBIO_THREAD_H
#include "common.h"

#pragma GCC visibility push(hidden)

/* ---- per mount statistics: the same layout as the tail of struct jobio_frame_mount ---- */
struct jobio_mstats {
  struct jobio_call_stats call[JOBIO_CALL_COUNT];
  struct jobio_size_stats sized[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT];
  uint64_t pow2_calls[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  uint64_t pow2_bytes[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  struct jobio_mount_ext ext;
};
_Static_assert(sizeof(struct jobio_mstats) ==
                   sizeof(struct jobio_frame_mount) - offsetof(struct jobio_frame_mount, call),
               "mstats mirrors the frame");

/*
 * One accumulation block per live thread. Blocks are never freed: a thread that ends gives its
 * block back (in_use = 0) and the next new thread takes it over, counters and all. Counters are
 * cumulative, so the process total is the sum over every block ever used; the flusher reads other
 * threads' blocks without locking (aligned 64-bit loads; a count that is being updated is at worst
 * one increment late).
 */
#define JOBIO_BLOCK_HEAD 4096
struct jobio_block {
  struct jobio_block *next;
  uint32_t in_use;
  uint32_t pad;
  uint64_t active;  /* unused (the flusher scans for slots with counts) */
  uint64_t ignored; /* calls on ignored file systems */
  /* Lifetimes of the threads that used this block (monotonic ns), the bound of the time estimate
   * (timebound.c): life_start is the current thread's start (0: none), life_done the sum of the
   * lifetimes of the threads that used it before. A thread that ends clears life_start first. */
  uint64_t life_start;
  uint64_t life_done;
  char pad2[JOBIO_BLOCK_HEAD - 48];
  struct jobio_mstats m[JOBIO_MAX_SLOTS];
};

/* Per-thread state, initial-exec TLS (one %fs-relative access, no __tls_get_addr). */
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

void jobio_threads_init(void); /* the key whose destructor gives an ending thread's block back */
/* The slow half of jobio_enter: first call of a thread, lazy initialisation, re-entry, vfork child,
 * untraced process. 1: count this call. */
int jobio_begin_slow(void);
struct jobio_block *jobio_block_claim(void);
struct jobio_block *jobio_blocks_head(void);
void jobio_blocks_reset_child(struct jobio_block *keep);
uint64_t jobio_threads_time(uint64_t now);

#pragma GCC visibility pop
#endif /* JOBIO_THREAD_H */
