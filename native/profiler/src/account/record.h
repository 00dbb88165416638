/*
 * Recording a call after it returned (record.c): stop the clock, classify (docs/profiler.md
 * "Classification"), count into the thread's block, restore errno, maybe flush. The read/write
 * family's common case is inline here (jobio_rec_xfer_inline).
 */
#ifndef JOBIO_RECORD_H
#define JOBIO_RECORD_H
#include "account/count.h"
#include "account/sampling.h"
#include "base/common.h"
#include "base/tls.h"
#include "process/fdtab.h"

#pragma GCC visibility push(hidden)

void jobio_rec_xfer_other(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t want, uint64_t est, int moves_pos);
/* the general transfer record (failed, empty, an open not yet decided, another kind of descriptor)
 * of an untimed call (t1 = 0) or of a timed one that ended at t1 with estimate est, on this
 * thread; returns r (so the wrappers end in a tail call and keep nothing across it) */
int64_t jobio_rec_xfer_slow(uint64_t t1, uint64_t est, int fd, int dir, int64_t r, int moves_pos);
/* the same for a read of 0 < r < want bytes (it met the end of the file) */
int64_t jobio_rec_read_short(uint64_t t1, uint64_t est, int fd, int64_t r, int moves_pos, uint64_t want);

/*
 * read/write family: dir is JOBIO_DIR_READ or JOBIO_DIR_WRITE (equal to JOBIO_CALL_READ/WRITE);
 * moves_pos: the call advances the file offset (read, write, readv, writev); want: the bytes a read
 * asked for (writes: 0).
 * The common case (bytes moved on a file whose open is already decided, a read that got all it
 * asked for) is counted inline. A short read (once per file, at its end) takes the general path,
 * which makes a small one green: one comparison here (dir is a constant, so writes have none).
 */
JOBIO_HOT int64_t jobio_rec_xfer_inline(struct jobio_tls *t, int timed, uint64_t t1, uint64_t est, int fd, int dir,
                                         int64_t r, int moves_pos, uint64_t want) {
  struct jobio_fd *e;
  uint32_t xoff;
  if (JOBIO_LIKELY(r > 0) && JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) && JOBIO_LIKELY((xoff = (e = &jobio_fds[fd])->xoff) != 0) &&
      (dir != JOBIO_DIR_READ || JOBIO_LIKELY((uint64_t)r >= want)) &&
      JOBIO_LIKELY(jobio_count_xfer_fast((char *)t->block + xoff, dir, (uint64_t)r, timed, est, t->last_dt))) {
    if (moves_pos) e->pos += r;
    if (timed && JOBIO_UNLIKELY(t1 >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) return jobio_tick_ret(t1, r);
    return r;
  }
  if (dir == JOBIO_DIR_READ && r > 0 && (uint64_t)r < want) return jobio_rec_read_short(timed ? t1 : 0, est, fd, r, moves_pos, want);
  return jobio_rec_xfer_slow(timed ? t1 : 0, est, fd, dir, r, moves_pos);
}

/* Network transfers (the datagram wrappers, which know the slot from the call's address). */
void jobio_count_net(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t est);

/* want: the bytes a read asked for (0: not known, and for writes) */
void jobio_rec_xfer_est(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t want, uint64_t est, int timed, int moves_pos);
void jobio_rec_fd_slow(struct jobio_ctx *c, int fd, int call, int cls);
/* The same after the clock stopped (a timed call's end t1 and estimate est; both 0 untimed). */
void jobio_rec_fd_stopped(struct jobio_ctx *c, int fd, int call, int cls, uint64_t t1, uint64_t est);
/* A call on a descriptor classified by the caller. Inline, the common case: untimed, not red, on a
 * file's descriptor known since its open (one count: what the general case would add). */
static inline void jobio_rec_fd(struct jobio_ctx *c, int fd, int call, int cls) {
  struct jobio_fd *e;
  if (JOBIO_LIKELY(c->t0 == 0 && cls != JOBIO_RED && (unsigned)fd < jobio_fd_cap && (e = &jobio_fds[fd])->kind == JOBIO_FD_FILE)) {
    struct jobio_mstats *m = jobio_ms(c->t->block, e->slot);
    m->call[call].calls[cls]++;
    if (JOBIO_CALL_DECIDED_LATER(call)) jobio_count_made(m, call); /* (an fstat: decided at once) */
    /* (call is a constant in each wrapper: nothing added to the others) */
    if (call == JOBIO_CALL_SYNC || call == JOBIO_CALL_FSCHANGE) jobio_ofd_mark_used(fd);
    return;
  }
  jobio_rec_fd_slow(c, fd, call, cls);
}
void jobio_rec_path(struct jobio_ctx *c, int dirfd, const char *path, int call, int cls);
void jobio_rec_stat_ok(struct jobio_ctx *c, int dirfd, const char *path, int have_dev, uint64_t dev, mode_t mode);
int jobio_path_absent(int dirfd, const char *path);
/* Before an open: will it create the file? (O_EXCL, O_TMPFILE: yes; O_CREAT alone: if the path is
 * absent, one fstatat; no O_CREAT: no.) Inline: most opens only read. */
static inline int jobio_open_creates(int dirfd, const char *path, int flags) {
  if ((flags & O_TMPFILE) == O_TMPFILE) return 1;
  if (!(flags & O_CREAT)) return 0;
  if (flags & O_EXCL) return 1;
  return jobio_path_absent(dirfd, path);
}
void jobio_rec_open(struct jobio_ctx *c, int dirfd, const char *path, int flags, int creates, int fd, uint8_t fdflags);
/* Before close: what the descriptor is (learnt now if never seen: afterwards it is gone). Inline:
 * every close asks. */
static inline int jobio_close_pre(int fd) {
  if ((unsigned)fd >= jobio_fd_cap) return jobio_fd_slot(fd);
  struct jobio_fd *e = &jobio_fds[fd];
  int kind = e->kind;
  if (kind == JOBIO_FD_UNKNOWN) kind = jobio_fd_learn(fd);
  if (kind == JOBIO_FD_FILE) return e->slot;
  if (kind == JOBIO_FD_OWN) return -2;
  return -1;
}
void jobio_rec_close(struct jobio_ctx *c, int fd, int slot, int r);
void jobio_rec_close_range(struct jobio_ctx *c, unsigned lo, unsigned hi, int r, int cloexec_only);
void jobio_rec_alias(struct jobio_ctx *c, int oldfd, int newfd);
int64_t jobio_seek_pre(int fd, int whence);
void jobio_rec_seek(struct jobio_ctx *c, int fd, int64_t off, int whence, int64_t before, int64_t r);

/* A call that can only fail or succeed without deciding anything: red when it failed, else yellow. */
static inline int jobio_fail_cls(long r) { return r < 0 ? JOBIO_RED : JOBIO_YELLOW; }

#pragma GCC visibility pop
#endif /* JOBIO_RECORD_H */
