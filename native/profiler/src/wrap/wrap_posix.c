/*
 * POSIX wrappers. Every wrapper has the same shape:
 *   forward at once unless this call is counted (jobio_begin: not initialised yet, re-entered,
 *   vfork child, excluded program) -> maybe take the time -> call the real function ->
 *   record (stops the clock, classifies, counts, restores errno) -> return the real result.
 */
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/syscall.h>

#include "account/count.h"
#include "account/record.h"
#include "account/sampling.h"
#include "base/real.h"
#include "base/state.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/mounts.h"
#include "process/thread.h"
#include "wrap/entry.h"

/* ---------------- temporary files (mkstemp & co.): the open glibc makes inside is a create ---------------- */
#define JOBIO_MKSTEMP(flags, call_expr)                                                  \
  struct jobio_ctx c;                                                                    \
  int counted = jobio_begin(&c);                                                         \
  int fd = call_expr;                                                                    \
  if (counted) jobio_rec_open(&c, AT_FDCWD, tmpl, O_RDWR | O_CREAT | O_EXCL | (flags), 1, fd, 0); \
  return fd;
JOBIO_EXPORT int mkstemp(char *tmpl) { JOBIO_MKSTEMP(0, REAL(mkstemp)(tmpl)) }
JOBIO_EXPORT int mkstemp64(char *tmpl) { JOBIO_MKSTEMP(0, REAL(mkstemp64)(tmpl)) }
JOBIO_EXPORT int mkostemp(char *tmpl, int fl) { JOBIO_MKSTEMP(fl, REAL(mkostemp)(tmpl, fl)) }
JOBIO_EXPORT int mkostemp64(char *tmpl, int fl) { JOBIO_MKSTEMP(fl, REAL(mkostemp64)(tmpl, fl)) }
JOBIO_EXPORT int mkstemps(char *tmpl, int sfx) { JOBIO_MKSTEMP(0, REAL(mkstemps)(tmpl, sfx)) }
JOBIO_EXPORT int mkostemps(char *tmpl, int sfx, int fl) { JOBIO_MKSTEMP(fl, REAL(mkostemps)(tmpl, sfx, fl)) }

/* ---------------- open family ---------------- */
static inline int jobio_open_at(int sym, int dirfd, const char *path, int flags, mode_t mode) {
  /* one body for every open-like entry point; sym picks the real function */
  struct jobio_ctx c;
  int counted = jobio_begin_notime(&c);
  int creates = counted ? jobio_open_creates(dirfd, path, flags) : 0;
  if (counted) jobio_start(&c);
  int fd;
  switch (sym) {
    case JOBIO_SYM_open: fd = REAL(open)(path, flags, mode); break;
    case JOBIO_SYM_open64: fd = REAL(open64)(path, flags, mode); break;
    case JOBIO_SYM_openat: fd = REAL(openat)(dirfd, path, flags, mode); break;
    case JOBIO_SYM_openat64: fd = REAL(openat64)(dirfd, path, flags, mode); break;
    case JOBIO_SYM_creat: fd = REAL(creat)(path, mode); break;
    case JOBIO_SYM_creat64: fd = REAL(creat64)(path, mode); break;
    case JOBIO_SYM___open_2: fd = REAL(__open_2)(path, flags); break;
    case JOBIO_SYM___open64_2: fd = REAL(__open64_2)(path, flags); break;
    case JOBIO_SYM___openat_2: fd = REAL(__openat_2)(dirfd, path, flags); break;
    default: fd = REAL(__openat64_2)(dirfd, path, flags); break;
  }
  if (counted) jobio_rec_open(&c, dirfd, path, flags, creates, fd, 0);
  return fd;
}

#define JOBIO_MODE_ARG(flags)          \
  mode_t mode = 0;                     \
  if (jobio_needs_mode(flags)) {       \
    va_list ap;                        \
    va_start(ap, flags);               \
    mode = (mode_t)va_arg(ap, int);    \
    va_end(ap);                        \
  }

JOBIO_EXPORT int open(const char *path, int flags, ...) {
  JOBIO_MODE_ARG(flags)
  return jobio_open_at(JOBIO_SYM_open, AT_FDCWD, path, flags, mode);
}
JOBIO_EXPORT int open64(const char *path, int flags, ...) {
  JOBIO_MODE_ARG(flags)
  return jobio_open_at(JOBIO_SYM_open64, AT_FDCWD, path, flags, mode);
}
JOBIO_EXPORT int openat(int dirfd, const char *path, int flags, ...) {
  JOBIO_MODE_ARG(flags)
  return jobio_open_at(JOBIO_SYM_openat, dirfd, path, flags, mode);
}
JOBIO_EXPORT int openat64(int dirfd, const char *path, int flags, ...) {
  JOBIO_MODE_ARG(flags)
  return jobio_open_at(JOBIO_SYM_openat64, dirfd, path, flags, mode);
}
JOBIO_EXPORT int creat(const char *path, mode_t mode) {
  return jobio_open_at(JOBIO_SYM_creat, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
JOBIO_EXPORT int creat64(const char *path, mode_t mode) {
  return jobio_open_at(JOBIO_SYM_creat64, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
JOBIO_EXPORT int __open_2(const char *path, int flags) {
  return jobio_open_at(JOBIO_SYM___open_2, AT_FDCWD, path, flags, 0);
}
JOBIO_EXPORT int __open64_2(const char *path, int flags) {
  return jobio_open_at(JOBIO_SYM___open64_2, AT_FDCWD, path, flags, 0);
}
JOBIO_EXPORT int __openat_2(int dirfd, const char *path, int flags) {
  return jobio_open_at(JOBIO_SYM___openat_2, dirfd, path, flags, 0);
}
JOBIO_EXPORT int __openat64_2(int dirfd, const char *path, int flags) {
  return jobio_open_at(JOBIO_SYM___openat64_2, dirfd, path, flags, 0);
}

/* ---------------- close family ---------------- */
JOBIO_EXPORT int close(int fd) {
  struct jobio_ctx c;
  if (!jobio_begin_notime(&c)) return REAL(close)(fd);
  int slot = jobio_close_pre(fd);
  jobio_start(&c);
  int r = REAL(close)(fd);
  jobio_rec_close(&c, fd, slot, r);
  return r;
}

JOBIO_EXPORT int close_range(unsigned int lo, unsigned int hi, int flags) {
  struct jobio_ctx c;
  if (!jobio_begin(&c)) return REAL(close_range)(lo, hi, flags);
  int r = REAL(close_range)(lo, hi, flags);
#ifdef CLOSE_RANGE_CLOEXEC
  int cloexec_only = (flags & CLOSE_RANGE_CLOEXEC) != 0;
#else
  int cloexec_only = (flags & 4) != 0;
#endif
  jobio_rec_close_range(&c, lo, hi, r, cloexec_only);
  return r;
}

JOBIO_EXPORT void closefrom(int lo) {
  struct jobio_ctx c;
  if (!jobio_begin(&c) || lo < 0) {
    REAL(closefrom)(lo);
    return;
  }
  REAL(closefrom)(lo); /* cannot fail (glibc aborts the process if it cannot close) */
  jobio_rec_close_range(&c, (unsigned)lo, ~0u, 0, 0);
}

/* ---------------- directory streams: a listing is a metadata read ---------------- */
/*
 * opendir opens the directory (openat O_DIRECTORY); fdopendir takes a descriptor the program
 * opened; both then fstat the directory (glibc sizes the stream's buffer by it): counted as a stat
 * of an open file, yellow, as the program's own fstat would be. readdir lists with getdents, not
 * counted (docs/profiler.md "What is not seen": no call type, and when glibc refills its buffer is
 * glibc's private state); closedir closes the descriptor. The listing moves bytes the profiler does
 * not count, so a directory opened to be listed is open_bytes_unseen, not "moved no byte".
 */
static inline void jobio_dir_listed(struct jobio_ctx *c, int fd) {
  int saved = errno;
  jobio_ofd_mark_unseen(fd);
  int slot = jobio_fd_slot(fd);
  if (slot >= 0 && c->t->block) jobio_count_reason(jobio_ms(c->t->block, (unsigned)slot), JOBIO_CALL_ACCESS, JOBIO_YELLOW, -1, 0, 0);
  errno = saved;
}
JOBIO_EXPORT DIR *opendir(const char *path) {
  struct jobio_ctx c;
  if (!jobio_begin(&c)) return REAL(opendir)(path);
  DIR *d = REAL(opendir)(path);
  int fd = d ? dirfd(d) : -1;
  jobio_rec_open(&c, AT_FDCWD, path, O_RDONLY | O_DIRECTORY, 0, fd, 0);
  if (fd >= 0) jobio_dir_listed(&c, fd);
  return d;
}
JOBIO_EXPORT DIR *fdopendir(int fd) {
  struct jobio_ctx c;
  DIR *d = REAL(fdopendir)(fd);
  if (d && jobio_begin_notime(&c)) jobio_dir_listed(&c, fd);
  return d;
}
JOBIO_EXPORT int closedir(DIR *d) {
  struct jobio_ctx c;
  DIR *dp = d; /* (declared nonnull; a NULL is the real closedir's to meet, not ours) */
  __asm__("" : "+r"(dp));
  if (!dp || !jobio_begin_notime(&c)) return REAL(closedir)(d);
  int fd = dirfd(d);
  int slot = jobio_close_pre(fd);
  jobio_start(&c);
  int r = REAL(closedir)(d);
  jobio_rec_close(&c, fd, slot, r);
  return r;
}

/* What a vector read that moved rv > 0 bytes asked for: its buffers' total (then readable: the
 * kernel has just read them), saturated; 0 (not known) when it moved nothing. (preadv2 with
 * RWF_NOWAIT: 0, as it returns what the page cache holds, short before the end of the file.) */
static inline uint64_t jobio_iov_total(ssize_t rv, const struct iovec *iov, int cnt) {
  uint64_t sum = 0;
  if (rv <= 0) return 0;
  for (int i = 0; i < cnt; i++) sum = __builtin_add_overflow(sum, (uint64_t)iov[i].iov_len, &sum) ? UINT64_MAX : sum;
  return sum;
}

/*
 * The hot path. The exported wrapper only decides (ready? timed?) and jumps: to the untimed body
 * (counted inline, jobio_rec_xfer_inline), to the timed one, or to the slow half (first call of
 * a thread, lazy initialisation, re-entry, vfork child, not traced). keep: a statement of the
 * exported wrapper (and of the slow half) before the call, with t the thread's record: the reads
 * keep the count they ask for (t->read_want, one store); want: what the read asked for, for the
 * record after the call (a read that got less met the end of the file).
 */
#define JOBIO_XFER_WRAP(name, params, args, dir, moves, keep, want)                              \
  static __attribute__((noinline)) ssize_t jobio_timed_##name(JOBIO_UNPAREN params, jobio_fn_##name fn) { \
    struct jobio_tls *t = &jobio_t;                                                             \
    struct timespec ts0, ts1;                                                                   \
    uint64_t w = t->gap_weight;                                                                 \
    t->countdown = jobio_next_gap_inline(t);                                                    \
    JOBIO_SPILL(JOBIO_MEM args, "+m"(fn), "+m"(w));                                             \
    clock_gettime(CLOCK_MONOTONIC, &ts0);                                                       \
    JOBIO_SPILL(JOBIO_MEM args, "+m"(fn), "+m"(w));                                             \
    ssize_t r = fn args;                                                                        \
    JOBIO_SPILL("+m"(r));                                                                       \
    clock_gettime(CLOCK_MONOTONIC, &ts1);                                                       \
    JOBIO_SPILL("+m"(r));                                                                       \
    const ssize_t rv = r; /* (a copy: the frame slot may alias the counters for the compiler) */ \
    uint64_t t1 = jobio_ts_ns(&ts1);                                                            \
    t->last_dt = t1 - jobio_ts_ns(&ts0);                                                        \
    return jobio_rec_xfer_inline(t, 1, t1, jobio_scale(t->last_dt, w), fd, dir, rv, moves, want); \
  }                                                                                             \
  static __attribute__((noinline)) ssize_t jobio_untimed_##name(JOBIO_UNPAREN params, jobio_fn_##name fn) { \
    const ssize_t rv = fn args;                                                                 \
    return jobio_rec_xfer_inline(&jobio_t, 0, 0, 0, fd, dir, rv, moves, want);                  \
  }                                                                                             \
  static __attribute__((noinline)) ssize_t jobio_slow_##name params {                            \
    struct jobio_tls *t = &jobio_t;                                                             \
    int how = jobio_slow_enter(t);                                                              \
    if (!how) return REAL(name) args;                                                           \
    keep;                                                                                       \
    if (how == 2) return jobio_timed_##name(JOBIO_UNPAREN args, REAL(name));                    \
    return jobio_untimed_##name(JOBIO_UNPAREN args, REAL(name));                                \
  }                                                                                             \
  JOBIO_EXPORT ssize_t name params {                                                            \
    struct jobio_tls *t = &jobio_t;                                                             \
    jobio_fn_##name fn;                                                                         \
    keep;                                                                                       \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name args;               \
    if (jobio_timed_now(t)) return jobio_timed_##name(JOBIO_UNPAREN args, fn);                  \
    return jobio_untimed_##name(JOBIO_UNPAREN args, fn);                                        \
  }

/* ---------------- reads ---------------- */
JOBIO_XFER_WRAP(read, (int fd, void *buf, size_t n), (fd, buf, n), JOBIO_DIR_READ, 1, t->read_want = n, jobio_t.read_want)
JOBIO_XFER_WRAP(pread, (int fd, void *buf, size_t n, off_t off), (fd, buf, n, off), JOBIO_DIR_READ, 0, t->read_want = n, jobio_t.read_want)
JOBIO_XFER_WRAP(pread64, (int fd, void *buf, size_t n, off64_t off), (fd, buf, n, off), JOBIO_DIR_READ, 0, t->read_want = n, jobio_t.read_want)
JOBIO_XFER_WRAP(readv, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), JOBIO_DIR_READ, 1, (void)0, jobio_iov_total(rv, iov, cnt))
JOBIO_XFER_WRAP(preadv, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off), JOBIO_DIR_READ, 0, (void)0, jobio_iov_total(rv, iov, cnt))
JOBIO_XFER_WRAP(preadv64, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off), JOBIO_DIR_READ, 0, (void)0, jobio_iov_total(rv, iov, cnt))
JOBIO_XFER_WRAP(preadv2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl), (fd, iov, cnt, off, fl), JOBIO_DIR_READ, off == -1, (void)0, (fl & RWF_NOWAIT) ? 0 : jobio_iov_total(rv, iov, cnt))
JOBIO_XFER_WRAP(preadv64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl), (fd, iov, cnt, off, fl), JOBIO_DIR_READ, off == -1, (void)0, (fl & RWF_NOWAIT) ? 0 : jobio_iov_total(rv, iov, cnt))
JOBIO_XFER_WRAP(__read_chk, (int fd, void *buf, size_t n, size_t buflen), (fd, buf, n, buflen), JOBIO_DIR_READ, 1, t->read_want = n, jobio_t.read_want)
JOBIO_XFER_WRAP(__pread_chk, (int fd, void *buf, size_t n, off_t off, size_t buflen), (fd, buf, n, off, buflen), JOBIO_DIR_READ, 0, t->read_want = n, jobio_t.read_want)
JOBIO_XFER_WRAP(__pread64_chk, (int fd, void *buf, size_t n, off64_t off, size_t buflen), (fd, buf, n, off, buflen), JOBIO_DIR_READ, 0, t->read_want = n, jobio_t.read_want)

/* ---------------- writes ---------------- */
JOBIO_XFER_WRAP(write, (int fd, const void *buf, size_t n), (fd, buf, n), JOBIO_DIR_WRITE, 1, (void)0, 0)
JOBIO_XFER_WRAP(pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off), JOBIO_DIR_WRITE, 0, (void)0, 0)
JOBIO_XFER_WRAP(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), JOBIO_DIR_WRITE, 0, (void)0, 0)
JOBIO_XFER_WRAP(writev, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), JOBIO_DIR_WRITE, 1, (void)0, 0)
JOBIO_XFER_WRAP(pwritev, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off), JOBIO_DIR_WRITE, 0, (void)0, 0)
JOBIO_XFER_WRAP(pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off), JOBIO_DIR_WRITE, 0, (void)0, 0)
JOBIO_XFER_WRAP(pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl), (fd, iov, cnt, off, fl), JOBIO_DIR_WRITE, off == -1, (void)0, 0)
JOBIO_XFER_WRAP(pwritev64v2, (int fd, const struct iovec *iov, int cnt, off64_t off, int fl), (fd, iov, cnt, off, fl), JOBIO_DIR_WRITE, off == -1, (void)0, 0)

/* ---------------- bytes moved without read/write: a read on the source, a write on the target ---------------- */
/* want: the bytes copy_file_range asked to move (fewer: the source's end was met, as a short read's);
 * 0 for sendfile and splice, which also stop at a full socket or pipe */
static inline void jobio_rec_copy(struct jobio_ctx *c, int in, int in_moves, int out, int out_moves, ssize_t r, size_t want) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  if (r >= 0) jobio_rec_xfer_est(c, in, JOBIO_DIR_READ, r, want, 0, 0, in_moves);
  jobio_rec_xfer_est(c, out, JOBIO_DIR_WRITE, r, 0, est, 1, out_moves); /* the duration goes to the write */
  jobio_after(t1);
}

/* in_moves, out_moves: whether the call moves the descriptor's offset (no offset pointer given) */
#define JOBIO_COPY(in_moves, out_moves, want, call_expr) \
  JOBIO_CTX_CALL(jobio_begin, ssize_t, call_expr, jobio_rec_copy(&c, in, (in_moves), out, (out_moves), r, (want)))
JOBIO_EXPORT ssize_t copy_file_range(int in, off64_t *off_in, int out, off64_t *off_out, size_t len, unsigned fl) {
  JOBIO_COPY(off_in == NULL, off_out == NULL, len, REAL(copy_file_range)(in, off_in, out, off_out, len, fl))
}
JOBIO_EXPORT ssize_t sendfile(int out, int in, off_t *off, size_t count) {
  JOBIO_COPY(off == NULL, 1, 0, REAL(sendfile)(out, in, off, count))
}
JOBIO_EXPORT ssize_t sendfile64(int out, int in, off64_t *off, size_t count) {
  JOBIO_COPY(off == NULL, 1, 0, REAL(sendfile64)(out, in, off, count))
}
JOBIO_EXPORT ssize_t splice(int in, off64_t *off_in, int out, off64_t *off_out, size_t len, unsigned fl) {
  JOBIO_COPY(off_in == NULL, off_out == NULL, 0, REAL(splice)(in, off_in, out, off_out, len, fl))
}

/* ---------------- seek ---------------- */
/*
 * A seek on a file whose offset is tracked is classified and counted inline, no system call:
 * backward or to the same offset red, forward yellow, failed red (as jobio_rec_seek). Decided
 * before the call as one comparison, so only the threshold waits across it: yellow iff r > thr.
 * SEEK_CUR: yellow iff it succeeded (r >= 0) and off > 0, so thr = -1 or INT64_MAX; otherwise
 * yellow iff r > before (the tracked offset, >= 0, so a failure, r < 0, stays red).
 */
JOBIO_HOT int64_t jobio_seek_thr(int64_t off, int whence, int64_t before) {
  if (whence == SEEK_CUR) return off > 0 ? -1 : INT64_MAX;
  return before;
}
_Static_assert(JOBIO_RED == 0 && JOBIO_YELLOW == 1, "seek class = (r > thr)");

/* The reason of a red seek on the fast path (known offset before): failed, to the same offset, or back. */
static __attribute__((noinline)) void jobio_seek_red(char *m, int64_t r, int64_t before, uint64_t est, int timed) {
  int reason = r < 0 ? jobio_fail_reason(errno) : (r == before ? JOBIO_REASON_ZERO_SEEK : JOBIO_REASON_BACKWARD_SEEK);
  jobio_reason((struct jobio_mstats *)(void *)m, reason, 1, est, (uint64_t)timed);
}

/* The same for a failed untimed seek; returns r (a tail call). */
static __attribute__((noinline)) int64_t jobio_seek_failed(char *m, int64_t r, int64_t before) {
  jobio_seek_red(m, r, before, 0, 0);
  return r;
}

/* A known offset (>= 0) is never that of a stdio descriptor (those stay unknown). The slow half
 * asks the kernel for an unknown offset (before the clock starts). The exported wrapper only
 * decides and jumps (so neither body pays for the other's saved registers); the timed body keeps
 * what it needs after the call in its frame (JOBIO_SPILL): the threshold, the counters and the
 * descriptor entry, all found before the clock starts. */
#define JOBIO_SEEK_WRAP(name, off_t_)                                                              \
  static __attribute__((noinline)) off_t_ jobio_slow_##name(int fd, off_t_ off, int whence, int how) { \
    struct jobio_tls *t = &jobio_t;                                                               \
    if (how < 0) how = jobio_slow_enter(t);                                                       \
    if (!how) return REAL(name)(fd, off, whence);                                                 \
    struct jobio_ctx c = {t, 0, 0};                                                               \
    int64_t before = jobio_seek_pre(fd, whence);                                                  \
    if (how == 2) jobio_start_timed(&c);                                                          \
    off_t_ r = REAL(name)(fd, off, whence);                                                       \
    jobio_rec_seek(&c, fd, off, whence, before, r);                                               \
    return r;                                                                                     \
  }                                                                                               \
  static __attribute__((noinline)) off_t_ jobio_timed_##name(int fd, off_t_ off, int whence, jobio_fn_##name fn) { \
    struct jobio_tls *t = &jobio_t;                                                               \
    struct jobio_fd *e;                                                                           \
    if ((unsigned)fd < jobio_fd_cap && (e = &jobio_fds[fd])->moff != 0 && e->pos >= 0) {          \
      struct timespec ts0, ts1;                                                                   \
      /* (copies in the frame: the arguments stay registers, so the fallback below is a jump) */  \
      struct jobio_fd *ke = e;                                                                    \
      int64_t thr = jobio_seek_thr(off, whence, e->pos);                                          \
      int kfd = fd, kwhence = whence;                                                             \
      off_t_ koff = off;                                                                          \
      jobio_fn_##name kfn = fn;                                                                   \
      uint64_t w = t->gap_weight;                                                                 \
      t->countdown = jobio_next_gap_inline(t);                                                    \
      JOBIO_SPILL("+m"(kfd), "+m"(koff), "+m"(kwhence), "+m"(kfn), "+m"(w), "+m"(thr), "+m"(ke)); \
      clock_gettime(CLOCK_MONOTONIC, &ts0);                                                       \
      JOBIO_SPILL("+m"(kfd), "+m"(koff), "+m"(kwhence), "+m"(kfn), "+m"(w), "+m"(thr), "+m"(ke)); \
      off_t_ r = kfn(kfd, koff, kwhence);                                                         \
      JOBIO_SPILL("+m"(r));                                                                       \
      clock_gettime(CLOCK_MONOTONIC, &ts1);                                                       \
      JOBIO_SPILL("+m"(r), "+m"(w), "+m"(thr), "+m"(ke));                                         \
      /* (copies: the frame slots may alias the counters for the compiler, these do not) */     \
      const int64_t rv = r;                                                                       \
      struct jobio_fd *const ev = ke;                                                             \
      const int64_t before = ev->pos;                                                             \
      const uint32_t mo = ev->moff;                                                               \
      if (JOBIO_UNLIKELY(mo == 0)) return rv; /* closed by another thread during the call */      \
      struct jobio_mstats *m = (struct jobio_mstats *)(void *)((char *)t->block + mo);            \
      uint64_t t1 = jobio_ts_ns(&ts1);                                                            \
      uint64_t dt = t1 - jobio_ts_ns(&ts0);                                                       \
      uint64_t est = jobio_scale(dt, w);                                                          \
      struct jobio_call_stats *cs = &m->call[JOBIO_CALL_SEEK];                                    \
      if (rv > thr) {                                                                             \
        cs->calls[JOBIO_YELLOW]++;                                                                \
        cs->time_ns[JOBIO_YELLOW] += est;                                                         \
      } else {                                                                                    \
        cs->calls[JOBIO_RED]++;                                                                   \
        cs->time_ns[JOBIO_RED] += est;                                                            \
        if (rv >= 0)                                                                              \
          jobio_reason(m, rv == before ? JOBIO_REASON_ZERO_SEEK : JOBIO_REASON_BACKWARD_SEEK, 1, est, 1); \
        else                                                                                      \
          jobio_seek_red((char *)m, rv, before, est, 1);                                          \
      }                                                                                           \
      cs->sampled++;                                                                              \
      jobio_max_store(&m->max.call_ns[JOBIO_CALL_SEEK], dt);                                      \
      if (rv >= 0) ev->pos = rv;                                                                  \
      if (JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) return jobio_tick_ret(t1, rv); \
      return rv;                                                                                  \
    }                                                                                             \
    return jobio_slow_##name(fd, off, whence, 2);                                                 \
  }                                                                                               \
  static __attribute__((noinline)) off_t_ jobio_untimed_##name(int fd, off_t_ off, int whence, jobio_fn_##name fn) { \
    struct jobio_fd *e;                                                                           \
    if (JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) && JOBIO_LIKELY((e = &jobio_fds[fd])->moff != 0) && \
        JOBIO_LIKELY(e->pos >= 0)) {                                                              \
      /* only the entry and the threshold wait across the call, in the frame; the counters' offset \
       * and the offset before are the entry's, read again after it */                          \
      struct jobio_fd *ke = e;                                                                    \
      int64_t thr = jobio_seek_thr(off, whence, e->pos);                                          \
      JOBIO_SPILL("+m"(ke), "+m"(thr));                                                           \
      off_t_ r = fn(fd, off, whence);                                                             \
      JOBIO_SPILL("+m"(ke), "+m"(thr));                                                           \
      int64_t before = ke->pos;                                                                   \
      const uint32_t mo = ke->moff;                                                               \
      if (JOBIO_UNLIKELY(mo == 0)) return r; /* closed by another thread during the call */       \
      struct jobio_mstats *m = (struct jobio_mstats *)(void *)((char *)jobio_t.block + mo);       \
      if (JOBIO_LIKELY(r > thr)) {                                                                \
        m->call[JOBIO_CALL_SEEK].calls[JOBIO_YELLOW]++;                                           \
      } else { /* red: its reason (a failure's from errno, out of line) */                        \
        m->call[JOBIO_CALL_SEEK].calls[JOBIO_RED]++;                                              \
        if (r < 0) return jobio_seek_failed((char *)m, r, before);                                \
        m->ext.reason_calls[r == before ? JOBIO_REASON_ZERO_SEEK : JOBIO_REASON_BACKWARD_SEEK]++; \
      }                                                                                           \
      ke->pos = r;                                                                                \
      return r;                                                                                   \
    }                                                                                             \
    return jobio_slow_##name(fd, off, whence, 1);                                                 \
  }                                                                                               \
  JOBIO_EXPORT off_t_ name(int fd, off_t_ off, int whence) {                                      \
    struct jobio_tls *t = &jobio_t;                                                               \
    jobio_fn_##name fn;                                                                           \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name(fd, off, whence, -1); \
    if (jobio_timed_now(t)) return jobio_timed_##name(fd, off, whence, fn);                       \
    return jobio_untimed_##name(fd, off, whence, fn);                                             \
  }

JOBIO_SEEK_WRAP(lseek, off_t)
JOBIO_SEEK_WRAP(lseek64, off64_t)
/* ---------------- delete and fschange (red on failure, yellow on success) ---------------- */
#define JOBIO_PATHCALL(call, dirfd, path, call_expr) \
  JOBIO_CTX_CALL(jobio_begin, int, call_expr, jobio_rec_path(&c, dirfd, path, call, jobio_fail_cls(r)))
#define JOBIO_FDCALL(call, fd, call_expr) \
  JOBIO_CTX_CALL(jobio_begin, int, call_expr, jobio_rec_fd(&c, fd, call, jobio_fail_cls(r)))

JOBIO_EXPORT int unlink(const char *p) { JOBIO_PATHCALL(JOBIO_CALL_DELETE, AT_FDCWD, p, REAL(unlink)(p)) }
JOBIO_EXPORT int unlinkat(int d, const char *p, int fl) {
  JOBIO_PATHCALL((fl & AT_REMOVEDIR) ? JOBIO_CALL_FSCHANGE : JOBIO_CALL_DELETE, d, p, REAL(unlinkat)(d, p, fl))
}
JOBIO_EXPORT int remove(const char *p) { JOBIO_PATHCALL(JOBIO_CALL_DELETE, AT_FDCWD, p, REAL(remove)(p)) }
JOBIO_EXPORT int rename(const char *a, const char *b) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, a, REAL(rename)(a, b))
}
JOBIO_EXPORT int renameat(int da, const char *a, int db, const char *b) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, da, a, REAL(renameat)(da, a, db, b))
}
JOBIO_EXPORT int renameat2(int da, const char *a, int db, const char *b, unsigned fl) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, da, a, REAL(renameat2)(da, a, db, b, fl))
}
JOBIO_EXPORT int mkdir(const char *p, mode_t m) { JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(mkdir)(p, m)) }
JOBIO_EXPORT int mkdirat(int d, const char *p, mode_t m) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, d, p, REAL(mkdirat)(d, p, m))
}
JOBIO_EXPORT int rmdir(const char *p) { JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(rmdir)(p)) }
JOBIO_EXPORT int chmod(const char *p, mode_t m) { JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(chmod)(p, m)) }
JOBIO_EXPORT int fchmodat(int d, const char *p, mode_t m, int fl) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, d, p, REAL(fchmodat)(d, p, m, fl))
}
JOBIO_EXPORT int truncate(const char *p, off_t len) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(truncate)(p, len))
}
JOBIO_EXPORT int truncate64(const char *p, off64_t len) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(truncate64)(p, len))
}
JOBIO_EXPORT int fchmod(int fd, mode_t m) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(fchmod)(fd, m)) }
/* owner and times (rsync -a, cp -p, tar x, touch): each a setattr on the metadata server */
JOBIO_EXPORT int chown(const char *p, uid_t u, gid_t g) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(chown)(p, u, g))
}
JOBIO_EXPORT int lchown(const char *p, uid_t u, gid_t g) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(lchown)(p, u, g))
}
JOBIO_EXPORT int fchown(int fd, uid_t u, gid_t g) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(fchown)(fd, u, g)) }
JOBIO_EXPORT int fchownat(int d, const char *p, uid_t u, gid_t g, int fl) {
  if ((fl & AT_EMPTY_PATH) && !p[0]) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, d, REAL(fchownat)(d, p, u, g, fl)) }
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, d, p, REAL(fchownat)(d, p, u, g, fl))
}
JOBIO_EXPORT int utimensat(int d, const char *p, const struct timespec t[2], int fl) {
  /* a NULL path (the kernel's futimens; glibc declares it nonnull) or "" with AT_EMPTY_PATH: the descriptor */
  const char *path = p;
  __asm__("" : "+r"(path));
  if (!path || (!path[0] && (fl & AT_EMPTY_PATH))) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, d, REAL(utimensat)(d, p, t, fl)) }
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, d, p, REAL(utimensat)(d, p, t, fl))
}
JOBIO_EXPORT int futimens(int fd, const struct timespec t[2]) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(futimens)(fd, t)) }
/* the older time calls (perl's utime, rsync's fallbacks): each one utimensat system call in glibc */
JOBIO_EXPORT int utimes(const char *p, const struct timeval t[2]) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(utimes)(p, t))
}
JOBIO_EXPORT int lutimes(const char *p, const struct timeval t[2]) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(lutimes)(p, t))
}
JOBIO_EXPORT int futimes(int fd, const struct timeval t[2]) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(futimes)(fd, t)) }
JOBIO_EXPORT int futimesat(int d, const char *p, const struct timeval t[2]) {
  /* (a NULL path: the descriptor itself, as the kernel's futimesat) */
  const char *path = p;
  __asm__("" : "+r"(path));
  if (!path) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, d, REAL(futimesat)(d, p, t)) }
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, d, p, REAL(futimesat)(d, p, t))
}
JOBIO_EXPORT int utime(const char *p, const struct utimbuf *t) {
  JOBIO_PATHCALL(JOBIO_CALL_FSCHANGE, AT_FDCWD, p, REAL(utime)(p, t))
}
JOBIO_EXPORT int ftruncate(int fd, off_t len) { JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(ftruncate)(fd, len)) }
JOBIO_EXPORT int ftruncate64(int fd, off64_t len) {
  JOBIO_FDCALL(JOBIO_CALL_FSCHANGE, fd, REAL(ftruncate64)(fd, len))
}

/* ---------------- sync family (red on failure, yellow on success) ---------------- */
JOBIO_EXPORT int fsync(int fd) { JOBIO_FDCALL(JOBIO_CALL_SYNC, fd, REAL(fsync)(fd)) }
JOBIO_EXPORT int fdatasync(int fd) { JOBIO_FDCALL(JOBIO_CALL_SYNC, fd, REAL(fdatasync)(fd)) }
JOBIO_EXPORT int syncfs(int fd) { JOBIO_FDCALL(JOBIO_CALL_SYNC, fd, REAL(syncfs)(fd)) }
JOBIO_EXPORT int sync_file_range(int fd, off64_t off, off64_t n, unsigned fl) {
  JOBIO_FDCALL(JOBIO_CALL_SYNC, fd, REAL(sync_file_range)(fd, off, n, fl))
}
JOBIO_EXPORT void sync(void) {
  /* sync() has no descriptor: attributed to the working directory's file system */
  struct jobio_ctx c;
  if (!jobio_begin(&c)) {
    REAL(sync)();
    return;
  }
  REAL(sync)();
  jobio_rec_path(&c, AT_FDCWD, ".", JOBIO_CALL_SYNC, JOBIO_YELLOW);
}

/* ---------------- mmap of files (anonymous mappings are not I/O: not counted) ---------------- */
/* A file mapping: the bytes that move through it are unknown (its open is not "nothing moved");
 * a mapping of an io_uring ring (an anonymous inode) means I/O the profiler cannot count. */
static void jobio_mmap_seen(int fd, size_t len, int64_t off) {
  int saved = errno;
  struct jobio_tls *t = &jobio_t;
  t->busy++;
  int slot = jobio_fd_slot(fd);
  if (slot >= 0) {
    __atomic_add_fetch(&jobio_g.mmap_bytes, (uint64_t)len, __ATOMIC_RELAXED);
    jobio_ofd_mark_unseen(fd);
  } else if (slot == -1) {
    char link[64], want[] = "anon_inode:[io_uring]";
    char path[40] = "/proc/self/fd/";
    size_t n = 14;
    char digits[12];
    int d = 0;
    unsigned v = (unsigned)fd;
    do digits[d++] = (char)('0' + v % 10); while ((v /= 10) && d < 11);
    while (d) path[n++] = digits[--d];
    path[n] = 0;
    long k = syscall(SYS_readlink, path, link, sizeof link - 1);
    if (k == (long)sizeof want - 1 && memcmp(link, want, sizeof want - 1) == 0 && off == 0) /* IORING_OFF_SQ_RING: once per ring */
      __atomic_add_fetch(&jobio_g.io_uring_setups, 1, __ATOMIC_RELAXED);
  }
  t->busy--;
  errno = saved;
}
#define JOBIO_MMAP(call_expr)                                                                                 \
  JOBIO_WRAP_BODY(struct jobio_ctx c, fd >= 0 && !(fl & MAP_ANONYMOUS) && jobio_begin(&c), void *, call_expr, \
                  if (r != MAP_FAILED) jobio_mmap_seen(fd, len, (int64_t)off);                                \
                  jobio_rec_fd(&c, fd, JOBIO_CALL_MMAP, r == MAP_FAILED ? JOBIO_RED : JOBIO_GREEN))
JOBIO_EXPORT void *mmap(void *a, size_t len, int prot, int fl, int fd, off_t off) {
  JOBIO_MMAP(REAL(mmap)(a, len, prot, fl, fd, off))
}
JOBIO_EXPORT void *mmap64(void *a, size_t len, int prot, int fl, int fd, off64_t off) {
  JOBIO_MMAP(REAL(mmap64)(a, len, prot, fl, fd, off))
}

/* ---------------- descriptor aliasing (not counted as calls) ---------------- */
/* counted: whether this call makes an alias at all (fcntl: F_DUPFD, F_DUPFD_CLOEXEC) */
#define JOBIO_ALIAS(counted, call_expr)                                                    \
  JOBIO_WRAP_BODY(struct jobio_ctx c, (counted) && jobio_begin_notime(&c), int, call_expr, \
                  if (r >= 0) jobio_rec_alias(&c, fd, r))
JOBIO_EXPORT int dup(int fd) { JOBIO_ALIAS(1, REAL(dup)(fd)) }
JOBIO_EXPORT int dup2(int fd, int nfd) { JOBIO_ALIAS(1, REAL(dup2)(fd, nfd)) }
JOBIO_EXPORT int dup3(int fd, int nfd, int fl) { JOBIO_ALIAS(1, REAL(dup3)(fd, nfd, fl)) }
/* (as glibc does: the argument is an int or a pointer, taken as a pointer) */
#define JOBIO_FCNTL(call_expr)    \
  va_list ap;                     \
  va_start(ap, cmd);              \
  void *arg = va_arg(ap, void *); \
  va_end(ap);                     \
  JOBIO_ALIAS(cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC, call_expr)
JOBIO_EXPORT int fcntl(int fd, int cmd, ...) { JOBIO_FCNTL(REAL(fcntl)(fd, cmd, arg)) }
JOBIO_EXPORT int fcntl64(int fd, int cmd, ...) { JOBIO_FCNTL(REAL(fcntl64)(fd, cmd, arg)) }

/* ---------------- working directory (tracked for relative paths) ---------------- */
static inline int jobio_cwd_after(int r) {
  struct jobio_ctx c;
  if (r == 0 && jobio_begin_notime(&c)) jobio_cwd_changed();
  return r;
}
JOBIO_EXPORT int chdir(const char *p) { return jobio_cwd_after(REAL(chdir)(p)); }
JOBIO_EXPORT int fchdir(int fd) { return jobio_cwd_after(REAL(fchdir)(fd)); }
