/*
 * Per-thread state (thread.c): the accumulation blocks that hold the counters, one per live thread
 * (the thread's record, base/tls.h, points at its own), and how a count is added to a block.
 */
#ifndef JOBIO_THREAD_H
#define JOBIO_THREAD_H
#include "base/common.h"
#include "base/tls.h"

#pragma GCC visibility push(hidden)

/* ---- per mount statistics: the same layout as the tail of struct jobio_frame_mount ---- */
struct jobio_mstats {
  struct jobio_call_stats call[JOBIO_CALL_COUNT];
  struct jobio_size_stats sized[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT];
  uint64_t pow2_calls[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  uint64_t pow2_bytes[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  struct jobio_mount_ext ext;
  struct jobio_mount_max max; /* not cumulative: the flush takes them (jobio_max_store) */
  struct jobio_mount_made made; /* opens, creates, stats as they are made (the rest: filled in by the flush) */
  struct jobio_short_reads short_reads; /* the small bin's reads that met the end of the file (green) */
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

void jobio_threads_init(void); /* the key whose destructor gives an ending thread's block back */
struct jobio_block *jobio_block_claim(void);
void jobio_thread_holds(struct jobio_block *b); /* the calling thread's block: given back when it ends */
struct jobio_block *jobio_blocks_head(void);
void jobio_blocks_reset_child(struct jobio_block *keep);
uint64_t jobio_threads_time(uint64_t now);

/* ---- counting into a block (the caller has classified the call) ---- */

/* (the flusher finds the slots with counts by looking: no per-call bookkeeping) */
static inline struct jobio_mstats *jobio_ms(struct jobio_block *b, unsigned slot) { return &b->m[slot]; }

/* The reason of a failed call, from its errno (enum jobio_reason). */
static inline int jobio_fail_reason(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR: return JOBIO_REASON_FAILED_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS: return JOBIO_REASON_FAILED_PERMISSION;
    default: return JOBIO_REASON_FAILED_OTHER;
  }
}

static inline void jobio_reason(struct jobio_mstats *m, int reason, uint64_t n, uint64_t est, uint64_t sampled) {
  m->ext.reason_calls[reason] += n;
  if (sampled) m->ext.reason_time_ns[reason] += est;
}

/*
 * The longest timed call: raise *slot to dt. Only the block's own thread raises it; the flush takes
 * it with an atomic exchange (0 left behind), so a call that ends while a snapshot is taken counts in
 * that snapshot or in the next, never in neither and never in both.
 */
static inline void jobio_max_store(uint64_t *slot, uint64_t dt) {
  if (dt > *slot) __atomic_store_n(slot, dt, __ATOMIC_RELAXED);
}

/* A call decided after it ended (an open, at its last close): counted without its maximum, which
 * was kept when it ended. reason < 0: none kept here, derived from the counts. */
static inline void jobio_count_decided(struct jobio_mstats *m, int call, int cls, int reason, uint64_t est, int sampled) {
  m->call[call].calls[cls]++;
  if (sampled) {
    m->call[call].time_ns[cls] += est;
    m->call[call].sampled++;
  }
  if (reason >= 0) jobio_reason(m, reason, 1, est, sampled);
}

/* The call types whose class may be decided after the call (an open at its close, a stat when its
 * path is opened): their calls are also counted as they are made (struct jobio_mount_made), so a
 * snapshot puts them in the time frame they happened in. Every other type's made count is the sum
 * of its classes, filled in by the flush. */
#define JOBIO_CALL_DECIDED_LATER(call) ((call) == JOBIO_CALL_OPEN || (call) == JOBIO_CALL_CREATE || (call) == JOBIO_CALL_ACCESS)
static inline void jobio_count_made(struct jobio_mstats *m, int call) { m->made.calls[call]++; }
/* A timed one's estimated time, counted when it was made too (its class's time waits with it). */
static inline void jobio_count_made_time(struct jobio_mstats *m, int call, uint64_t est) {
  m->made.time_ns[call] += est;
  m->made.sampled[call]++;
}

/* A call with an explicit reason, as it ends. A timed call's measured duration is the thread's
 * last_dt (set when its clock stopped). */
static inline void jobio_count_reason(struct jobio_mstats *m, int call, int cls, int reason, uint64_t est, int sampled) {
  if (JOBIO_CALL_DECIDED_LATER(call)) { /* made and decided now */
    jobio_count_made(m, call);
    if (sampled) jobio_count_made_time(m, call, est);
  }
  jobio_count_decided(m, call, cls, reason, est, sampled);
  if (sampled) jobio_max_store(&m->max.call_ns[call], jobio_t.last_dt);
}

/* A call classified by the caller: red here means the call failed (errno says why); the callers of
 * red calls that did not fail (an open with nothing moved, an unused stat, a backward seek) give
 * their reason with jobio_count_reason. */
static inline void jobio_count(struct jobio_mstats *m, int call, int cls, uint64_t est, int sampled) {
  jobio_count_reason(m, call, cls, cls == JOBIO_RED ? jobio_fail_reason(errno) : -1, est, sampled);
}

/* Word offsets into the mstats (dir is a constant in every caller, so these fold). */
#define JOBIO_W(field) (offsetof(struct jobio_mstats, field) / sizeof(uint64_t))
#define JOBIO_W_CALLS(ct) (JOBIO_W(call[0].calls[0]) + (size_t)(ct) * (sizeof(struct jobio_call_stats) / 8))
#define JOBIO_W_SIZED(dir) (JOBIO_W(sized[0][0]) + (size_t)(dir) * JOBIO_SIZE_COUNT * 3)
#define JOBIO_W_P2C(dir) (JOBIO_W(pow2_calls[0][0]) + (size_t)(dir) * JOBIO_POW2_BINS)
#define JOBIO_W_P2B(dir) (JOBIO_W(pow2_bytes[0][0]) + (size_t)(dir) * JOBIO_POW2_BINS)
#define JOBIO_W_MAXCALL(ct) (JOBIO_W(max.call_ns[0]) + (size_t)(ct))
#define JOBIO_W_MAXSIZED(dir) (JOBIO_W(max.sized_ns[0][0]) + (size_t)(dir) * JOBIO_SIZE_COUNT)
#define JOBIO_W_MADE(ct) (JOBIO_W(made.calls[0]) + (size_t)(ct))

#pragma GCC visibility pop
#endif /* JOBIO_THREAD_H */
