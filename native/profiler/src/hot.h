/*
 * The hot path, inline in every wrapper: is this call counted, is it timed (stratified sampling),
 * and its classification and counting into the thread's block; the read/write family is counted
 * here without a call. What it does not do inline it hands to out-of-line slow halves (thread.h,
 * sampling.h, record.c).
 */
#ifndef JOBIO_HOT_H
#define JOBIO_HOT_H
#include "fdtab.h"
#include "real.h"
#include "sampling.h"
#include "state.h"
#include "sys.h"
#include "thread.h"

#pragma GCC visibility push(hidden)

/* A wrapper's context: whether its duration is measured, and when it started. */
struct jobio_ctx {
  struct jobio_tls *t;
  uint64_t t0; /* 0: not sampled */
  uint64_t w;  /* its weight 1/p when sampled */
};

/*
 * Duration sampling, stratified: the calls of a thread are cut into strata of `period` consecutive
 * calls and one call per stratum, at a position drawn uniformly in [0, period), is timed. Every
 * call is therefore timed with probability exactly 1/period and its duration weighted by period
 * (Horvitz-Thompson) is an unbiased estimate of the time of the calls it stands for; the number
 * of timed calls among N consecutive calls is floor(N/period) or ceil(N/period). A period change
 * (JOBIO_SAMPLE_MAX_PER_SEC) applies from the next stratum on, whose weight it is.
 * Returns the calls until the next timed one: the rest of this stratum (stratum_left: its length
 * less the position of its timed call), then the position in the next. Runs once per timed call:
 * with period 1 a load and two stores; otherwise an LCG step and a multiply (no floating point).
 */
JOBIO_HOT uint64_t jobio_next_gap_inline(struct jobio_tls *t) {
  uint64_t len = t->period;
  uint64_t gap = t->stratum_left;
  t->gap_weight = len;
  if (len == 1) { /* every call timed: position 0 */
    t->stratum_left = 1;
    return gap;
  }
  /* a 64-bit LCG step (increment 1: odd, so the full period 2^64 is kept); its high bits, the
   * ones a multiply-high keeps, are the good ones */
  uint64_t x = t->rng * 6364136223846793005ull + 1;
  t->rng = x;
  uint64_t pos = (uint64_t)(((unsigned __int128)x * len) >> 64); /* uniform in [0, len) */
  t->stratum_left = len - pos;
  return gap + pos;
}

/*
 * Is this call counted? The common case is one TLS load and two tests; the rest (first call of a
 * thread, lazy initialisation, re-entry, vfork child, untraced process) is jobio_begin_slow.
 */
JOBIO_HOT int jobio_enter(struct jobio_tls *t) {
  if (JOBIO_LIKELY(t->busy == 0)) return 1; /* (busy has JOBIO_BUSY_NOBLOCK while block is NULL) */
  return jobio_begin_slow();
}

/*
 * Is this counted call timed? Calls are cut into strata of `period` consecutive calls (per thread)
 * and exactly one call per stratum, at a uniformly drawn position, is timed: each call is timed
 * with probability exactly 1/period, and its duration weighted by period is an unbiased estimate
 * (jobio_next_gap). One decrement per call.
 */
JOBIO_HOT int jobio_timed_now(struct jobio_tls *t) { return JOBIO_UNLIKELY(--t->countdown == 0); }

/* The timed call starts: its weight, the next gap, and the start time. */
JOBIO_HOT void jobio_start_timed(struct jobio_ctx *c) {
  struct jobio_tls *t = c->t;
  c->w = t->gap_weight;
  t->countdown = jobio_next_gap_inline(t);
  c->t0 = jobio_now();
}

JOBIO_HOT void jobio_start(struct jobio_ctx *c) {
  if (jobio_timed_now(c->t)) jobio_start_timed(c);
}

/* Should this call be counted? (false: forward only.) Does not take the time. */
JOBIO_HOT int jobio_begin_notime(struct jobio_ctx *c) {
  struct jobio_tls *t = &jobio_t;
  c->t = t;
  c->t0 = 0;
  return jobio_enter(t);
}

JOBIO_HOT int jobio_begin(struct jobio_ctx *c) {
  if (!jobio_begin_notime(c)) return 0;
  jobio_start(c);
  return 1;
}

static inline uint64_t jobio_ts_ns(const struct timespec *ts) {
  return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}
static inline uint64_t jobio_ts_diff(const struct timespec *a, const struct timespec *b) {
  return (uint64_t)(a->tv_sec - b->tv_sec) * 1000000000u + (uint64_t)(a->tv_nsec - b->tv_nsec);
}

/* duration x weight, saturated */
JOBIO_HOT uint64_t jobio_scale(uint64_t dt, uint64_t w) {
  unsigned __int128 p = (unsigned __int128)dt * w;
  return p >> 64 ? UINT64_MAX : (uint64_t)p;
}

/* The duration estimate of a sampled call, and the end time (0 if not sampled). */
JOBIO_HOT uint64_t jobio_stop(struct jobio_ctx *c, uint64_t *est) {
  if (!c->t0) {
    *est = 0;
    return 0;
  }
  uint64_t t1 = jobio_now();
  *est = jobio_scale(t1 - c->t0, c->w);
  return t1;
}

/* After a timed call: a flush due? (and the JOBIO_SAMPLE_MAX_PER_SEC window, when set) */
JOBIO_HOT void jobio_after(uint64_t t1) {
  if (t1 && JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) jobio_tick(t1, 1);
}

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

/* A call with an explicit reason (reason < 0: none kept here, derived from the counts). */
static inline void jobio_count_reason(struct jobio_mstats *m, int call, int cls, int reason, uint64_t est, int sampled) {
  m->call[call].calls[cls]++;
  if (sampled) {
    m->call[call].time_ns[cls] += est;
    m->call[call].sampled++;
  }
  if (reason >= 0) jobio_reason(m, reason, 1, est, sampled);
}

/* A call classified by the caller: red here means the call failed (errno says why); the callers of
 * red calls that did not fail (an open with nothing moved, an unused stat, a backward seek) give
 * their reason with jobio_count_reason. */
static inline void jobio_count(struct jobio_mstats *m, int call, int cls, uint64_t est, int sampled) {
  jobio_count_reason(m, call, cls, cls == JOBIO_RED ? jobio_fail_reason(errno) : -1, est, sampled);
}

/* Count a call of type `call` and class `cls` on the slot (or ignored when slot < 0). */
static inline void jobio_count_slot_reason(struct jobio_ctx *c, int slot, int call, int cls, int reason, uint64_t est) {
  struct jobio_block *b = c->t->block;
  if (slot < 0) {
    if (slot == -1) b->ignored++;
    return;
  }
  jobio_count_reason(jobio_ms(b, (unsigned)slot), call, cls, reason, est, c->t0 != 0);
}
static inline void jobio_count_slot(struct jobio_ctx *c, int slot, int call, int cls, uint64_t est) {
  jobio_count_slot_reason(c, slot, call, cls, cls == JOBIO_RED ? jobio_fail_reason(errno) : -1, est);
}

static inline unsigned jobio_pow2_bin(uint64_t n) { return n ? 64u - (unsigned)__builtin_clzll(n) : 0u; }

/* Word offsets into the mstats (dir is a constant in every caller, so these fold). */
#define JOBIO_W(field) (offsetof(struct jobio_mstats, field) / sizeof(uint64_t))
#define JOBIO_W_CALLS(ct) (JOBIO_W(call[0].calls[0]) + (size_t)(ct) * (sizeof(struct jobio_call_stats) / 8))
#define JOBIO_W_SIZED(dir) (JOBIO_W(sized[0][0]) + (size_t)(dir) * JOBIO_SIZE_COUNT * 3)
#define JOBIO_W_P2C(dir) (JOBIO_W(pow2_calls[0][0]) + (size_t)(dir) * JOBIO_POW2_BINS)
#define JOBIO_W_P2B(dir) (JOBIO_W(pow2_bytes[0][0]) + (size_t)(dir) * JOBIO_POW2_BINS)

/*
 * Where a transfer of n > 0 bytes is counted, by q = 63 - clz(n) (its power-of-two bin is q + 1)
 * and direction: the byte offsets in the mstats of its calls[class] and of its named size bin. The
 * class and size bin follow from q alone unless a threshold lies strictly inside [2^q, 2^(q+1))
 * (a threshold that is not a power of two): then sz is 0 and the general path compares. Built once
 * from the configuration (jobio_binoff_init).
 */
struct jobio_binoff {
  uint16_t cls[JOBIO_DIR_COUNT][64];
  uint16_t sz[JOBIO_DIR_COUNT][64];
};
_Static_assert(sizeof(struct jobio_mstats) < 65536, "byte offsets fit uint16_t");
extern struct jobio_binoff jobio_binoff;
void jobio_binoff_init(void);

#define JOBIO_U64_AT(base, off) (*(uint64_t *)(void *)((char *)(base) + (off)))

/* floor(log2(n)) for n > 0 */
JOBIO_HOT size_t jobio_log2(uint64_t n) {
#if defined(__x86_64__)
  uint64_t q;
  __asm__("bsrq %1, %0" : "=r"(q) : "rm"(n) : "cc");
  return (size_t)q;
#else
  return (size_t)(unsigned)(63 ^ __builtin_clzll(n));
#endif
}

/* Count a transfer of n > 0 bytes inline (m: the slot's counters). 0: not possible, nothing counted. */
JOBIO_HOT int jobio_count_xfer_fast(char *m, int dir, uint64_t n, int timed, uint64_t est) {
  size_t q = jobio_log2(n);
  size_t sz = jobio_binoff.sz[dir][q];
  if (JOBIO_UNLIKELY(sz == 0)) return 0;
  size_t cls = jobio_binoff.cls[dir][q];
  uint64_t *p2 = (uint64_t *)(void *)m + JOBIO_W_P2C(dir) + 1 + q;
  JOBIO_U64_AT(m, cls)++;
  JOBIO_U64_AT(m, sz)++;
  JOBIO_U64_AT(m, sz + 8) += n;
  p2[0]++;
  p2[JOBIO_W_P2B(dir) - JOBIO_W_P2C(dir)] += n;
  if (timed) {
    JOBIO_U64_AT(m, cls + 24) += est;                  /* time_ns[class] */
    ((uint64_t *)(void *)m)[JOBIO_W_CALLS(dir) + 6]++; /* sampled */
    JOBIO_U64_AT(m, sz + 16) += est;                   /* the size bin's time */
  }
  return 1;
}

/* A transfer of n bytes (n < 0: failed) on a file-system slot, timed or not. */
static inline void jobio_count_xfer(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r,
                                    uint64_t est) {
  int sampled = c->t0 != 0;
  if (r < 0) {
    jobio_count(m, dir, JOBIO_RED, est, sampled);
    return;
  }
  uint64_t n = (uint64_t)r;
  uint64_t *w = (uint64_t *)(void *)m;
  int big = n >= jobio_cfg.small;
  int bin = big + (n >= jobio_cfg.large);
  unsigned p = jobio_pow2_bin(n);
  w[JOBIO_W_CALLS(dir) + (size_t)big * 2]++;
  uint64_t *sz = w + JOBIO_W_SIZED(dir) + (size_t)bin * 3;
  sz[0]++;
  sz[1] += n;
  w[JOBIO_W_P2C(dir) + p]++;
  w[JOBIO_W_P2B(dir) + p] += n;
  if (sampled) {
    w[JOBIO_W_CALLS(dir) + 3 + (size_t)big * 2] += est; /* time_ns[class] */
    w[JOBIO_W_CALLS(dir) + 6]++;                        /* sampled */
    sz[2] += est;
  }
}
_Static_assert(JOBIO_RED == 0 && JOBIO_GREEN == 2, "class index = 2 * big");
_Static_assert(offsetof(struct jobio_call_stats, time_ns) == 24 && offsetof(struct jobio_call_stats, sampled) == 48,
               "call stats layout");

void jobio_rec_xfer_other(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t est, int moves_pos);
/* the general transfer record (failed, empty, an open not yet decided, another kind of descriptor)
 * of an untimed call (t1 = 0) or of a timed one that ended at t1 with estimate est, on this
 * thread; returns r (so the wrappers end in a tail call and keep nothing across it) */
int64_t jobio_rec_xfer_slow(uint64_t t1, uint64_t est, int fd, int dir, int64_t r, int moves_pos);

/*
 * read/write family: dir is JOBIO_DIR_READ or JOBIO_DIR_WRITE (equal to JOBIO_CALL_READ/WRITE);
 * moves_pos: the call advances the file offset (read, write, readv, writev).
 * The common case (bytes moved on a file whose open is already decided) is counted inline.
 */
JOBIO_HOT int64_t jobio_rec_xfer_inline(struct jobio_tls *t, int timed, uint64_t t1, uint64_t est, int fd, int dir,
                                         int64_t r, int moves_pos) {
  struct jobio_fd *e;
  uint32_t xoff;
  if (JOBIO_LIKELY(r > 0) && JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) &&
      JOBIO_LIKELY((xoff = (e = &jobio_fds[fd])->xoff) != 0) &&
      JOBIO_LIKELY(jobio_count_xfer_fast((char *)t->block + xoff, dir, (uint64_t)r, timed, est))) {
    if (moves_pos) e->pos += r;
    if (timed && JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) return jobio_tick_ret(t1, r);
    return r;
  }
  return jobio_rec_xfer_slow(timed ? t1 : 0, est, fd, dir, r, moves_pos);
}

/* The same for a wrapper that went through jobio_begin (a context, maybe timed). */
JOBIO_HOT void jobio_rec_xfer(struct jobio_ctx *c, int fd, int dir, int64_t r, int moves_pos) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  if (t1)
    jobio_rec_xfer_inline(c->t, 1, t1, est, fd, dir, r, moves_pos);
  else
    jobio_rec_xfer_inline(c->t, 0, 0, 0, fd, dir, r, moves_pos);
}

/*
 * The shape of the hottest wrappers (read/write family, lseek, stat): the ready test and the
 * countdown inline, then the untimed count inline with a small register footprint; the timed call
 * (jobio_timed_NAME) and everything else (jobio_slow_NAME: first call of a thread, re-entry,
 * vfork child, not traced) are separate functions, so the common path saves few registers.
 */
/* The fast test without the countdown, also requiring the real function to be resolved already
 * (so the fast half never calls the resolver). */
#define JOBIO_READY(t, fn, sym)                                                                      \
  (JOBIO_LIKELY((t)->busy == 0) &&                                                                   \
   JOBIO_LIKELY(((fn) = (__typeof__(fn))__atomic_load_n(&jobio_real[JOBIO_SYM_##sym], __ATOMIC_RELAXED)) != NULL))
/* In the slow half (the ready test failed): 0 forward uncounted, 1 counted untimed, 2 timed. */
JOBIO_HOT int jobio_slow_enter(struct jobio_tls *t) {
  if (!jobio_begin_slow()) return 0;
  return jobio_timed_now(t) ? 2 : 1;
}

/*
 * Values that must survive a call (the clock reads, the real function) wait in the stack frame:
 * JOBIO_SPILL("+m"(a), ...) before and after the call makes the compiler store them once and
 * load them once where they are used, instead of keeping them in callee-saved registers (each
 * of which costs a push, a pop and two moves). An empty asm: no instruction of its own.
 */
#define JOBIO_SPILL(...) __asm__ volatile("" : __VA_ARGS__)
/* "+m" operands for a parenthesised argument list: JOBIO_MEM (fd, buf, n) */
#define JOBIO_MEM(...) JOBIO_MEM_N(__VA_ARGS__, JOBIO_MEM5, JOBIO_MEM4, JOBIO_MEM3, JOBIO_MEM2, JOBIO_MEM1, )(__VA_ARGS__)
#define JOBIO_MEM_N(_1, _2, _3, _4, _5, m, ...) m
#define JOBIO_MEM1(a) "+m"(a)
#define JOBIO_MEM2(a, b) "+m"(a), "+m"(b)
#define JOBIO_MEM3(a, b, c) "+m"(a), "+m"(b), "+m"(c)
#define JOBIO_MEM4(a, b, c, d) "+m"(a), "+m"(b), "+m"(c), "+m"(d)
#define JOBIO_MEM5(a, b, c, d, e) "+m"(a), "+m"(b), "+m"(c), "+m"(d), "+m"(e)

_Static_assert((int)JOBIO_DIR_READ == (int)JOBIO_CALL_READ && (int)JOBIO_DIR_WRITE == (int)JOBIO_CALL_WRITE, "dir = call");

#pragma GCC visibility pop
#endif /* JOBIO_HOT_H */
