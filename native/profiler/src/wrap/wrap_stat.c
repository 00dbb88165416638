/*
 * stat family and access: both glibc generations. glibc >= 2.33 exports stat/lstat/fstat/fstatat
 * (and the 64 names) as real symbols; binaries linked against older glibc call __xstat & co.
 * A stat of a path is pending until the path is opened (yellow) or the process ends (red); a
 * failed one is red at once. A stat of an open descriptor (fstat, AT_EMPTY_PATH) concerns a file
 * that is open, so it is yellow (red if it fails).
 */
#include <sys/sysmacros.h>

#include "account/count.h"
#include "account/record.h"
#include "account/sampling.h"
#include "base/real.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/stattab.h"
#include "wrap/entry.h"

static inline void jobio_rec_stat(struct jobio_ctx *c, int dirfd, const char *path, int r, uint64_t dev, mode_t mode) {
  if (r == 0)
    jobio_rec_stat_ok(c, dirfd, path, 1, dev, mode);
  else
    jobio_rec_path(c, dirfd, path, JOBIO_CALL_ACCESS, JOBIO_RED);
}

static inline void jobio_rec_fstat(struct jobio_ctx *c, int fd, int r) {
  jobio_rec_fd(c, fd, JOBIO_CALL_ACCESS, jobio_fail_cls(r));
}

/* The device and mode of a stat's answer: only read when the call succeeded (a failed stat may
 * have been given an invalid buffer, e.g. NULL -> EFAULT: reading it would crash the program). */
#define JOBIO_ST_DEV(r, buf) ((r) == 0 ? (uint64_t)(buf)->st_dev : 0)
#define JOBIO_ST_MODE(r, buf) ((r) == 0 ? (mode_t)(buf)->st_mode : 0)

/* fstatat/statx with AT_EMPTY_PATH and "" work on the descriptor itself */
static inline int jobio_is_fd_stat(const char *path, int flags) {
  return (flags & AT_EMPTY_PATH) && path && path[0] == 0;
}

/* A path call checked after it returns (a stat, an access): the common case (untimed, succeeded,
 * decided by ok_untimed from the thread's last lookup) in jobio_untimed_NAME, which the exported
 * wrapper jumps to: the arguments wait across the call in its frame (JOBIO_SPILL), and anything
 * else is the general record (jobio_record_NAME); the slow half starts the thread or times the call
 * and tries ok_fast. ok_fast may use t, est and c; record may use c and r. */
/* 0, that the compiler cannot take from a register that holds 0 already */
JOBIO_HOT int jobio_zero(void) {
  int z;
#if defined(__x86_64__) || defined(__i386__)
  __asm__("xorl %k0, %k0" : "=r"(z));
#else
  z = 0; /* (the compiler may still take a register that holds 0: only a saving missed) */
  __asm__("" : "+r"(z));
#endif
  return z;
}
#define JOBIO_PATH_CHECK_WRAP(name, params, args, ok_fast, ok_untimed, record)                   \
  static __attribute__((noinline)) int jobio_slow_##name(int how, JOBIO_UNPAREN params) {          \
    struct jobio_tls *t = &jobio_t;                                                               \
    if (how < 0) how = jobio_slow_enter(t);                                                       \
    if (!how) return REAL(name) args;                                                             \
    struct jobio_ctx c = {t, 0, 0};                                                               \
    if (how == 2) jobio_start_timed(&c);                                                          \
    int r = REAL(name) args;                                                                      \
    if (r == 0) {                                                                                 \
      uint64_t est;                                                                               \
      uint64_t t1 = jobio_stop(&c, &est);                                                         \
      if (ok_fast) {                                                                              \
        jobio_after(t1);                                                                          \
        return r;                                                                                 \
      }                                                                                           \
    }                                                                                             \
    record;                                                                                       \
    return r;                                                                                     \
  }                                                                                               \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-parameter\"") /* (a version argument) */ \
  static __attribute__((noinline)) int jobio_record_##name(int r, JOBIO_UNPAREN params) {         \
    struct jobio_ctx c = {&jobio_t, 0, 0};                                                        \
    record;                                                                                       \
    return r;                                                                                     \
  }                                                                                               \
  _Pragma("GCC diagnostic pop")                                                                   \
  static __attribute__((noinline)) int jobio_untimed_##name(JOBIO_UNPAREN params, jobio_fn_##name fn) { \
    JOBIO_SPILL_IN(JOBIO_MEM_IN args);                                                            \
    int r = fn args;                                                                              \
    JOBIO_SPILL(JOBIO_MEM args);                                                                  \
    struct jobio_tls *t = &jobio_t;                                                               \
    if (JOBIO_LIKELY(r == 0)) {                                                                   \
      if (JOBIO_LIKELY(ok_untimed)) {                                                             \
        return jobio_zero(); /* (r, made anew: else r is kept in a saved register across ok_untimed) */ \
      }                                                                                           \
      return jobio_record_##name(0, JOBIO_UNPAREN args);                                          \
    }                                                                                             \
    return jobio_record_##name(r, JOBIO_UNPAREN args);                                            \
  }                                                                                               \
  JOBIO_EXPORT int name params {                                                                  \
    struct jobio_tls *t = &jobio_t;                                                               \
    jobio_fn_##name fn;                                                                           \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name(-1, JOBIO_UNPAREN args); \
    if (jobio_timed_now(t)) return jobio_slow_##name(2, JOBIO_UNPAREN args);                      \
    return jobio_untimed_##name(JOBIO_UNPAREN args, fn);                                          \
  }

/* The stat of a path: decided by the device of the last lookup (jobio_stat_ok_fast). */
#define JOBIO_STAT_PATH_WRAP(name, params, args, path, buf)                                  \
  JOBIO_PATH_CHECK_WRAP(name, params, args, jobio_stat_ok_fast(t, path, (buf)->st_dev, est, c.t0 != 0), \
                        jobio_stat_ok_untimed(t, path, (buf)->st_dev),                         \
                        jobio_rec_stat(&c, AT_FDCWD, path, r, JOBIO_ST_DEV(r, buf), JOBIO_ST_MODE(r, buf)))

/* (the program's own fstat of a descriptor opened by path confirms its mount for free) */
#define JOBIO_STAT_FD(call_expr, fd, buf)                                                               \
  JOBIO_CTX_CALL(jobio_begin, int, call_expr,                                                           \
                 if (r == 0 && (unsigned)(fd) < jobio_fd_cap && (jobio_fds[fd].flags & JOBIO_FDF_PROV)) \
                     jobio_fd_confirm(fd, 1, (uint64_t)(buf)->st_dev, (buf)->st_mode);                  \
                 jobio_rec_fstat(&c, fd, r))

/*
 * The stat of a descriptor in the shape of the transfers' hot path (wrap_posix.c): the exported
 * wrapper only decides (ready? timed?) and jumps. A file's descriptor whose mount is settled (no
 * JOBIO_FDF_PROV: that one the answer confirms) is counted inline when the call succeeds, yellow:
 * only its entry waits across the call, in the frame, and the counters' offset is read from it
 * after. A failure is the general record (jobio_fstat_red); any other descriptor, and the slow
 * half's calls, go through JOBIO_STAT_FD.
 */
/* A failed stat of a descriptor (t1, est: a timed call's end and estimate, else 0): red, its reason
 * from errno. Returns r (a tail call). */
static __attribute__((noinline)) int jobio_fstat_red(struct jobio_fd *e, int r, uint64_t t1, uint64_t est, uint64_t w) {
  struct jobio_ctx c = {&jobio_t, t1, w};
  jobio_rec_fd_stopped(&c, (int)(e - jobio_fds), JOBIO_CALL_ACCESS, JOBIO_RED, t1, est);
  return r;
}
/* The entry of a file's descriptor counted inline, else NULL. */
JOBIO_HOT struct jobio_fd *jobio_fstat_inline(int fd) {
  struct jobio_fd *e;
  if (JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) && JOBIO_LIKELY((e = &jobio_fds[fd])->moff != 0) &&
      JOBIO_LIKELY(!(e->flags & JOBIO_FDF_PROV)))
    return e;
  return NULL;
}
#define JOBIO_FSTAT_WRAP(name, params, args, fd, buf)                                                             \
  static __attribute__((noinline)) int jobio_slow_##name(int how, JOBIO_UNPAREN params) {                          \
    struct jobio_tls *t = &jobio_t;                                                                               \
    if (how < 0) how = jobio_slow_enter(t);                                                                       \
    if (!how) return REAL(name) args;                                                                             \
    struct jobio_ctx c = {t, 0, 0};                                                                               \
    if (how == 2) jobio_start_timed(&c);                                                                          \
    int r = REAL(name) args;                                                                                      \
    if (r == 0 && (unsigned)(fd) < jobio_fd_cap && (jobio_fds[fd].flags & JOBIO_FDF_PROV))                        \
      jobio_fd_confirm(fd, 1, (uint64_t)(buf)->st_dev, (buf)->st_mode);                                           \
    jobio_rec_fstat(&c, fd, r);                                                                                   \
    return r;                                                                                                     \
  }                                                                                                               \
  static __attribute__((noinline)) int jobio_untimed_##name(JOBIO_UNPAREN params, jobio_fn_##name fn) {           \
    struct jobio_fd *e = jobio_fstat_inline(fd);                                                                  \
    if (JOBIO_UNLIKELY(!e)) return jobio_slow_##name(1, JOBIO_UNPAREN args);                                       \
    struct jobio_fd *ke = e;                                                                                      \
    JOBIO_SPILL("+m"(ke));                                                                                        \
    int r = fn args;                                                                                              \
    JOBIO_SPILL("+m"(ke));                                                                                        \
    if (JOBIO_UNLIKELY(r != 0)) return jobio_fstat_red(ke, r, 0, 0, 0);                                           \
    const uint32_t mo = ke->moff;                                                                                 \
    if (JOBIO_UNLIKELY(mo == 0)) return r; /* closed by another thread during the call */                         \
    struct jobio_mstats *m = (struct jobio_mstats *)(void *)((char *)jobio_t.block + mo);                         \
    m->call[JOBIO_CALL_ACCESS].calls[JOBIO_YELLOW]++;                                                             \
    jobio_count_made(m, JOBIO_CALL_ACCESS); /* (decided at once) */                                               \
    return r;                                                                                                     \
  }                                                                                                               \
  static __attribute__((noinline)) int jobio_timed_##name(JOBIO_UNPAREN params, jobio_fn_##name fn) {             \
    struct jobio_fd *e = jobio_fstat_inline(fd);                                                                  \
    if (JOBIO_UNLIKELY(!e)) return jobio_slow_##name(2, JOBIO_UNPAREN args);                                       \
    struct jobio_tls *t = &jobio_t;                                                                               \
    struct timespec ts0, ts1;                                                                                     \
    struct jobio_fd *ke = e;                                                                                      \
    jobio_fn_##name kfn = fn;                                                                                     \
    uint64_t w = t->gap_weight;                                                                                   \
    t->countdown = jobio_next_gap_inline(t);                                                                      \
    JOBIO_SPILL(JOBIO_MEM args, "+m"(kfn), "+m"(w), "+m"(ke));                                                    \
    clock_gettime(CLOCK_MONOTONIC, &ts0);                                                                         \
    JOBIO_SPILL(JOBIO_MEM args, "+m"(kfn), "+m"(w), "+m"(ke));                                                    \
    int r = kfn args;                                                                                             \
    JOBIO_SPILL("+m"(r));                                                                                         \
    clock_gettime(CLOCK_MONOTONIC, &ts1);                                                                         \
    JOBIO_SPILL("+m"(r), "+m"(ke), "+m"(w));                                                                      \
    const int rv = r; /* (a copy: the frame slot may alias the counters for the compiler) */                      \
    uint64_t t1 = jobio_ts_ns(&ts1);                                                                              \
    t->last_dt = t1 - jobio_ts_ns(&ts0);                                                                          \
    uint64_t est = jobio_scale(t->last_dt, w);                                                                    \
    if (JOBIO_UNLIKELY(rv != 0)) return jobio_fstat_red(ke, rv, t1, est, w);                                      \
    const uint32_t mo = ke->moff;                                                                                 \
    if (JOBIO_UNLIKELY(mo == 0)) return rv; /* closed by another thread during the call */                        \
    jobio_count_reason((struct jobio_mstats *)(void *)((char *)t->block + mo), JOBIO_CALL_ACCESS, JOBIO_YELLOW, -1, est, 1); \
    if (JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) return (int)jobio_tick_ret(t1, rv); \
    return rv;                                                                                                    \
  }                                                                                                               \
  JOBIO_EXPORT int name params {                                                                                  \
    struct jobio_tls *t = &jobio_t;                                                                               \
    jobio_fn_##name fn;                                                                                           \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name(-1, JOBIO_UNPAREN args);               \
    if (jobio_timed_now(t)) return jobio_timed_##name(JOBIO_UNPAREN args, fn);                                    \
    return jobio_untimed_##name(JOBIO_UNPAREN args, fn);                                                          \
  }

/* dev, mode: of the answer, read by the caller only when r == 0 */
#define JOBIO_STAT_AT_DEV(call_expr, dirfd, path, flags, dev, mode)                                         \
  JOBIO_CTX_CALL(jobio_begin, int, call_expr,                                                               \
                 if (jobio_is_fd_stat(path, flags)) jobio_rec_fstat(&c, dirfd == AT_FDCWD ? -1 : dirfd, r); \
                 else jobio_rec_stat(&c, dirfd, path, r, (dev), (mode)))
#define JOBIO_STAT_AT(call_expr, dirfd, path, flags, buf) \
  JOBIO_STAT_AT_DEV(call_expr, dirfd, path, flags, JOBIO_ST_DEV(r, buf), JOBIO_ST_MODE(r, buf))

JOBIO_STAT_PATH_WRAP(stat, (const char *p, struct stat *b), (p, b), p, b)
JOBIO_STAT_PATH_WRAP(stat64, (const char *p, struct stat64 *b), (p, b), p, b)
JOBIO_STAT_PATH_WRAP(lstat, (const char *p, struct stat *b), (p, b), p, b)
JOBIO_STAT_PATH_WRAP(lstat64, (const char *p, struct stat64 *b), (p, b), p, b)
JOBIO_FSTAT_WRAP(fstat, (int fd, struct stat *b), (fd, b), fd, b)
JOBIO_FSTAT_WRAP(fstat64, (int fd, struct stat64 *b), (fd, b), fd, b)
JOBIO_EXPORT int fstatat(int d, const char *p, struct stat *b, int fl) {
  JOBIO_STAT_AT(REAL(fstatat)(d, p, b, fl), d, p, fl, b)
}
JOBIO_EXPORT int fstatat64(int d, const char *p, struct stat64 *b, int fl) {
  JOBIO_STAT_AT(REAL(fstatat64)(d, p, b, fl), d, p, fl, b)
}

JOBIO_EXPORT int statx(int d, const char *p, int fl, unsigned int mask, struct statx *b) {
  JOBIO_STAT_AT_DEV(REAL(statx)(d, p, fl, mask, b), d, p, fl, r == 0 ? makedev(b->stx_dev_major, b->stx_dev_minor) : 0,
                    r == 0 ? b->stx_mode : 0)
}

/* legacy entry points (binaries linked against glibc < 2.33) */
JOBIO_STAT_PATH_WRAP(__xstat, (int v, const char *p, struct stat *b), (v, p, b), p, b)
JOBIO_STAT_PATH_WRAP(__xstat64, (int v, const char *p, struct stat64 *b), (v, p, b), p, b)
JOBIO_STAT_PATH_WRAP(__lxstat, (int v, const char *p, struct stat *b), (v, p, b), p, b)
JOBIO_STAT_PATH_WRAP(__lxstat64, (int v, const char *p, struct stat64 *b), (v, p, b), p, b)
JOBIO_FSTAT_WRAP(__fxstat, (int v, int fd, struct stat *b), (v, fd, b), fd, b)
JOBIO_FSTAT_WRAP(__fxstat64, (int v, int fd, struct stat64 *b), (v, fd, b), fd, b)
JOBIO_EXPORT int __fxstatat(int v, int d, const char *p, struct stat *b, int fl) {
  JOBIO_STAT_AT(REAL(__fxstatat)(v, d, p, b, fl), d, p, fl, b)
}
JOBIO_EXPORT int __fxstatat64(int v, int d, const char *p, struct stat64 *b, int fl) {
  JOBIO_STAT_AT(REAL(__fxstatat64)(v, d, p, b, fl), d, p, fl, b)
}

/* access: no device in the answer, attributed by path */
static inline void jobio_rec_access(struct jobio_ctx *c, int dirfd, const char *p, int r) {
  if (r == 0)
    jobio_rec_stat_ok(c, dirfd, p, 0, 0, 0);
  else
    jobio_rec_path(c, dirfd, p, JOBIO_CALL_ACCESS, JOBIO_RED);
}

/* As the stat of a path, decided by the thread's last directory (jobio_access_ok_fast). */
#define JOBIO_ACCESS_WRAP(name, params, args, dirfd, p)                                                 \
  JOBIO_PATH_CHECK_WRAP(name, params, args, jobio_access_ok_fast(t, dirfd, p, est, c.t0 != 0),           \
                        jobio_access_ok_untimed(t, dirfd, p), jobio_rec_access(&c, dirfd, p, r))

JOBIO_ACCESS_WRAP(access, (const char *p, int mode), (p, mode), AT_FDCWD, p)
JOBIO_ACCESS_WRAP(faccessat, (int d, const char *p, int mode, int fl), (d, p, mode, fl), d, p)
