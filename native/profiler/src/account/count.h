/*
 * Counting a call into the thread's block, inline (the class of a transfer from its size, the time
 * estimate of a timed call), the part of the hot path every wrapper and record function shares. Out
 * of line: the record functions (record.c), the sampling decision's slow parts (sampling.c).
 */
#ifndef JOBIO_COUNT_H
#define JOBIO_COUNT_H
#include "account/binoff.h"
#include "base/common.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/thread.h"

#pragma GCC visibility push(hidden)

/* A wrapper's context: whether its duration is measured, and when it started. */
struct jobio_ctx {
  struct jobio_tls *t;
  uint64_t t0; /* 0: not sampled */
  uint64_t w;  /* its weight 1/p when sampled */
};

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
  c->t->last_dt = t1 - c->t0;
  *est = jobio_scale(t1 - c->t0, c->w);
  return t1;
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

/* Count a transfer of n > 0 bytes in power-of-two bin q + 1 inline, with the byte offsets of its
 * calls[class] and of its named size bin in the slot's counters m (dt: a timed call's measured
 * duration). */
JOBIO_HOT void jobio_count_xfer_at(char *m, int dir, size_t q, size_t cls, size_t sz, uint64_t n, int timed, uint64_t est,
                                   uint64_t dt) {
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
    jobio_max_store(&JOBIO_U64_AT(m, jobio_binoff.mx[dir][q]), dt);
    jobio_max_store((uint64_t *)(void *)m + JOBIO_W_MAXCALL(dir), dt);
  }
}

/* Count a file transfer of n > 0 bytes inline (m: the slot's counters; dt: a timed call's measured
 * duration): its class from its size. 0: not possible, nothing counted. */
JOBIO_HOT int jobio_count_xfer_fast(char *m, int dir, uint64_t n, int timed, uint64_t est, uint64_t dt) {
  size_t q = jobio_log2(n);
  size_t sz = jobio_binoff.sz[dir][q];
  if (JOBIO_UNLIKELY(sz == 0)) return 0;
  jobio_count_xfer_at(m, dir, q, jobio_binoff.cls[dir][q], sz, n, timed, est, dt);
  return 1;
}

/* The same for a network transfer: green whatever its size, as the general count
 * (jobio_count_net). */
JOBIO_HOT int jobio_count_net_fast(char *m, int dir, uint64_t n, int timed, uint64_t est, uint64_t dt) {
  size_t q = jobio_log2(n);
  size_t sz = jobio_binoff.sz[dir][q];
  if (JOBIO_UNLIKELY(sz == 0)) return 0;
  jobio_count_xfer_at(m, dir, q, (JOBIO_W_CALLS(dir) + JOBIO_GREEN) * 8, sz, n, timed, est, dt);
  return 1;
}

/* A transfer of n bytes (n < 0: failed) on a file-system slot, timed or not. want: the bytes a read
 * asked for (0: not known, and for writes). */
static inline void jobio_count_xfer(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t want,
                                    uint64_t est) {
  int sampled = c->t0 != 0;
  if (r < 0) {
    jobio_count(m, dir, JOBIO_RED, est, sampled);
    return;
  }
  uint64_t n = (uint64_t)r;
  uint64_t *w = (uint64_t *)(void *)m;
  if (n == 0) {
    /* end of file (a read, or the last copy_file_range of cp, returning 0): the expected end of a
     * sequential pass, not a small transfer. Green, in power-of-two bin 0 only (no named size bin). */
    w[JOBIO_W_CALLS(dir) + JOBIO_GREEN]++;
    w[JOBIO_W_P2C(dir)]++;
    if (sampled) {
      w[JOBIO_W_CALLS(dir) + 3 + JOBIO_GREEN] += est;
      w[JOBIO_W_CALLS(dir) + 6]++;
      jobio_max_store(&w[JOBIO_W_MAXCALL(dir)], jobio_t.last_dt);
    }
    return;
  }
  int big = n >= jobio_cfg.small;
  int bin = big + (n >= jobio_cfg.large);
  unsigned p = jobio_pow2_bin(n);
  /* a small read that got less than it asked for met the end of the file: green, in its true bins,
   * and counted apart so that the receiver can tell it from the small reads */
  int eof = dir == JOBIO_DIR_READ && !big && n < want;
  if (eof) {
    m->short_reads.calls++;
    m->short_reads.bytes += n;
    if (sampled) m->short_reads.time_ns += est;
  }
  w[JOBIO_W_CALLS(dir) + (size_t)(big | eof) * 2]++;
  uint64_t *sz = w + JOBIO_W_SIZED(dir) + (size_t)bin * 3;
  sz[0]++;
  sz[1] += n;
  w[JOBIO_W_P2C(dir) + p]++;
  w[JOBIO_W_P2B(dir) + p] += n;
  if (sampled) {
    w[JOBIO_W_CALLS(dir) + 3 + (size_t)(big | eof) * 2] += est; /* time_ns[class] */
    w[JOBIO_W_CALLS(dir) + 6]++;                        /* sampled */
    sz[2] += est;
    jobio_max_store(&w[JOBIO_W_MAXSIZED(dir) + (size_t)bin], jobio_t.last_dt);
    jobio_max_store(&w[JOBIO_W_MAXCALL(dir)], jobio_t.last_dt);
  }
}
_Static_assert(JOBIO_RED == 0 && JOBIO_GREEN == 2, "class index = 2 * big");
_Static_assert(offsetof(struct jobio_call_stats, time_ns) == 24 && offsetof(struct jobio_call_stats, sampled) == 48,
               "call stats layout");

_Static_assert((int)JOBIO_DIR_READ == (int)JOBIO_CALL_READ && (int)JOBIO_DIR_WRITE == (int)JOBIO_CALL_WRITE, "dir = call");

#pragma GCC visibility pop
#endif /* JOBIO_COUNT_H */
