/*
 * Record functions used by the wrappers (the slower, out-of-line ones; the read/write fast path is
 * static inline in record.h). Each one: stop the clock, classify (docs/profiler.md "Classification"),
 * count into the thread's block, restore errno, maybe flush.
 */
#include "account/record.h"

#include <string.h>

#include "account/count.h"
#include "account/sampling.h"
#include "base/pathwalk.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/flusher.h"
#include "process/stattab.h"
#include "process/thread.h"

/* An untimed open or close still checks whether the time frame is due (untimed reads and writes
 * do not): jobio_tick(now, 0), called only when it has something to do (the frame is due, or this
 * process has no flush thread yet). */
static inline void jobio_tick_untimed(void) {
  uint64_t now = jobio_now_coarse();
  if (JOBIO_UNLIKELY(now >= __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED)) || jobio_flusher_missing()) jobio_tick(now, 0);
}

/* Network transfers: red if failed, else green; sizes still binned. (Inlined here; jobio_count_net
 * is the same for the datagram wrappers, which know the slot from the call's address.) */
JOBIO_HOT void jobio_count_net_here(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t est) {
  int sampled = c->t0 != 0;
  int cls = r < 0 ? JOBIO_RED : JOBIO_GREEN;
  jobio_count(m, dir, cls, est, sampled);
  if (r < 0) return;
  uint64_t n = (uint64_t)r;
  int bin = n < jobio_cfg.small ? JOBIO_SIZE_SMALL : (n < jobio_cfg.large ? JOBIO_SIZE_MEDIUM : JOBIO_SIZE_LARGE);
  unsigned p = jobio_pow2_bin(n);
  m->sized[dir][bin].calls++;
  m->sized[dir][bin].bytes += n;
  if (sampled) {
    m->sized[dir][bin].time_ns += est;
    jobio_max_store(&m->max.sized_ns[dir][bin], jobio_t.last_dt);
  }
  m->pow2_calls[dir][p]++;
  m->pow2_bytes[dir][p] += n;
}

void jobio_count_net(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t est) {
  jobio_count_net_here(c, m, dir, r, est);
}

void jobio_rec_xfer_other(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t want, uint64_t est, int moves_pos) {
  struct jobio_block *b = c->t->block;
  if ((unsigned)fd >= jobio_fd_cap) {
    int slot = jobio_fd_slot(fd);
    if (slot >= 0)
      jobio_count_xfer(c, jobio_ms(b, (unsigned)slot), dir, r, want, est);
    else if (slot == -1)
      b->ignored++;
    return;
  }
  struct jobio_fd *e = &jobio_fds[fd];
  if (e->flags & JOBIO_FDF_PROV) jobio_fd_confirm(fd, 0, 0, 0);
  int kind = e->kind;
  if (kind == JOBIO_FD_UNKNOWN) kind = jobio_fd_learn(fd);
  switch (kind) {
    case JOBIO_FD_FILE:
      jobio_count_xfer(c, jobio_ms(b, e->slot), dir, r, want, est);
      if (r > 0) {
        if (!(e->flags & JOBIO_FDF_SAT)) jobio_ofd_note_bytes(fd, e, (uint64_t)r);
        if (moves_pos && e->pos >= 0) e->pos += r;
      }
      break;
    case JOBIO_FD_NET: jobio_count_net_here(c, jobio_ms(b, e->slot), dir, r, est); break;
    case JOBIO_FD_OWN: break;
    default: b->ignored++; break;
  }
}

/* The general transfer record: failed or empty, an open not yet decided, another kind of descriptor. */
static __attribute__((noinline)) int64_t jobio_rec_xfer_general(uint64_t t1, uint64_t est, int fd, int dir, int64_t r, int moves_pos,
                                                                 uint64_t want) {
  struct jobio_tls *t = &jobio_t;
  struct jobio_ctx c = {t, t1, 1}; /* only "timed or not" matters below */
  struct jobio_fd *e;
  if ((unsigned)fd < jobio_fd_cap && (jobio_fds[fd].flags & JOBIO_FDF_PROV)) jobio_fd_confirm(fd, 0, 0, 0);
  if ((unsigned)fd < jobio_fd_cap && (e = &jobio_fds[fd])->kind == JOBIO_FD_FILE) {
    jobio_count_xfer(&c, jobio_ms(t->block, e->slot), dir, r, want, est);
    if (r > 0) {
      if (!(e->flags & JOBIO_FDF_SAT)) jobio_ofd_note_bytes(fd, e, (uint64_t)r);
      if (moves_pos) e->pos += r;
    }
  } else {
    jobio_rec_xfer_other(&c, fd, dir, r, want, est, moves_pos);
  }
  jobio_after(t1);
  return r;
}

/* read/write on a socket counted as network whose peer is known: counted as send/recv's inline
 * count is (here, not in the read/write wrappers' inline path, which only files take); the rest is
 * the general record. */
int64_t jobio_rec_xfer_slow(uint64_t t1, uint64_t est, int fd, int dir, int64_t r, int moves_pos) {
  struct jobio_fd *e;
  if (r > 0 && (unsigned)fd < jobio_fd_cap && (e = &jobio_fds[fd])->kind == JOBIO_FD_NET) {
    char *m = (char *)jobio_ms(jobio_t.block, e->slot);
    uint64_t n = (uint64_t)r;
    /* (each case with constants: the untimed ones then need no saved register) */
    if (!t1) {
      if (dir == JOBIO_DIR_READ ? jobio_count_net_fast(m, JOBIO_DIR_READ, n, 0, 0, 0) : jobio_count_net_fast(m, JOBIO_DIR_WRITE, n, 0, 0, 0))
        return r;
    } else if (dir == JOBIO_DIR_READ ? jobio_count_net_fast(m, JOBIO_DIR_READ, n, 1, est, jobio_t.last_dt)
                                     : jobio_count_net_fast(m, JOBIO_DIR_WRITE, n, 1, est, jobio_t.last_dt)) {
      jobio_after(t1);
      return r;
    }
  }
  return jobio_rec_xfer_general(t1, est, fd, dir, r, moves_pos, 0);
}

/* A read of 0 < r < want bytes: on a socket counted as network, as any read there (green); else the
 * general record, which knows what it asked for. */
int64_t jobio_rec_read_short(uint64_t t1, uint64_t est, int fd, int64_t r, int moves_pos, uint64_t want) {
  if ((unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_NET) return jobio_rec_xfer_slow(t1, est, fd, JOBIO_DIR_READ, r, moves_pos);
  return jobio_rec_xfer_general(t1, est, fd, JOBIO_DIR_READ, r, moves_pos, want);
}

/* A transfer with an explicit estimate (copy_file_range & co. count two sides, one timed). */
void jobio_rec_xfer_est(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t want, uint64_t est, int timed, int moves_pos) {
  struct jobio_ctx nc = *c;
  if (!timed) nc.t0 = 0;
  int saved = errno;
  if ((unsigned)fd < jobio_fd_cap && (jobio_fds[fd].flags & JOBIO_FDF_PROV)) jobio_fd_confirm(fd, 0, 0, 0);
  if ((unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_FILE) {
    struct jobio_fd *e = &jobio_fds[fd];
    jobio_count_xfer(&nc, jobio_ms(c->t->block, e->slot), dir, r, want, timed ? est : 0);
    if (r > 0) {
      if (!(e->flags & JOBIO_FDF_SAT)) jobio_ofd_note_bytes(fd, e, (uint64_t)r);
      if (e->pos >= 0) e->pos = moves_pos ? e->pos + r : e->pos;
    }
  } else {
    jobio_rec_xfer_other(&nc, fd, dir, r, want, timed ? est : 0, moves_pos);
  }
  errno = saved;
}

/* A call on a descriptor classified by the caller (the general case of jobio_rec_fd, record.h). */
static inline __attribute__((always_inline)) void jobio_rec_fd_at(struct jobio_ctx *c, int fd, int call, int cls, uint64_t t1,
                                                                   uint64_t est) {
  int saved = errno;
  int slot = jobio_fd_slot(fd);
  if ((unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_NET) slot = -1; /* not a network call type */
  if (cls != JOBIO_RED && (call == JOBIO_CALL_SYNC || call == JOBIO_CALL_FSCHANGE)) jobio_ofd_mark_used(fd);
  jobio_count_slot_reason(c, slot, call, cls, cls == JOBIO_RED ? jobio_fail_reason(saved) : -1, est);
  errno = saved;
  jobio_after(t1);
}
void jobio_rec_fd_slow(struct jobio_ctx *c, int fd, int call, int cls) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  jobio_rec_fd_at(c, fd, call, cls, t1, est);
}
void jobio_rec_fd_stopped(struct jobio_ctx *c, int fd, int call, int cls, uint64_t t1, uint64_t est) {
  jobio_rec_fd_at(c, fd, call, cls, t1, est);
}

/* A call on a path (delete, fschange, sync, failed stat/access). */
void jobio_rec_path(struct jobio_ctx *c, int dirfd, const char *path, int call, int cls);
void jobio_rec_path(struct jobio_ctx *c, int dirfd, const char *path, int call, int cls) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int saved = errno;
  c->t->busy++;
  jobio_dirfd_used(dirfd, path);
  int slot = path ? jobio_path_slot(0, 0, dirfd, path, 0, 0) : -1;
  c->t->busy--;
  if (slot == -3) slot = -1;
  jobio_count_slot_reason(c, slot, call, cls, cls == JOBIO_RED ? jobio_fail_reason(saved) : -1, est);
  errno = saved;
  jobio_after(t1);
}

/* A successful stat of a path: pending until the path is opened (yellow) or the process ends (red). */
void jobio_rec_stat_ok(struct jobio_ctx *c, int dirfd, const char *path, int have_dev, uint64_t dev, mode_t mode);
void jobio_rec_stat_ok(struct jobio_ctx *c, int dirfd, const char *path, int have_dev, uint64_t dev, mode_t mode) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int saved = errno;
  c->t->busy++;
  /* the stat of a special file (fifo, socket) is still a stat on the file system that holds it */
  (void)mode;
  jobio_dirfd_used(dirfd, path);
  /* without a device (access), a path absolute or relative to the working directory is walked once,
   * for its mount and its hash (as an open's) */
  struct jobio_pathwalk pw;
  int walked = !have_dev && path[0] && (path[0] == '/' || dirfd == AT_FDCWD);
  if (walked) jobio_pw_walk(path, &pw);
  int slot = walked ? jobio_slot_walked(path, &pw, 0) : jobio_path_slot(have_dev, dev, dirfd, path, 0, 0);
  if (slot == -3) slot = -1;
  if (slot < 0)
    c->t->block->ignored++;
  else
    jobio_stat_pending(c->t->block, slot, walked ? pw.hash : jobio_path_hash(dirfd, path), est, c->t0 != 0);
  c->t->busy--;
  errno = saved;
  jobio_after(t1);
}

/* Before an open with O_CREAT (without O_EXCL): is the path absent, so the open creates it? */
int jobio_path_absent(int dirfd, const char *path) {
  struct stat st;
  int saved = errno;
  jobio_guard_enter();
  long r = jobio_sys_fstatat(dirfd, path, &st, 0);
  int absent = r != 0 && errno == ENOENT;
  jobio_guard_leave();
  errno = saved;
  return absent;
}

void jobio_rec_open(struct jobio_ctx *c, int dirfd, const char *path, int flags, int creates, int fd, uint8_t fdflags);
void jobio_rec_open(struct jobio_ctx *c, int dirfd, const char *path, int flags, int creates, int fd, uint8_t fdflags) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int saved = errno;
  struct jobio_tls *t = c->t;
  struct jobio_block *b = t->block;
  int call = creates ? JOBIO_CALL_CREATE : JOBIO_CALL_OPEN;
  t->busy++;
  jobio_dirfd_used(dirfd, path);
  if (fd < 0) {
    int slot = path ? jobio_path_slot(0, 0, dirfd, path, 0, 0) : -1;
    if (slot == -3) slot = -1;
    jobio_count_slot_reason(c, slot, call, JOBIO_RED, jobio_fail_reason(saved), est);
  } else {
    if ((unsigned)fd < jobio_fd_cap) {
      /* the number was in use as far as we knew: closed behind our back (e.g. inside libc) */
      struct jobio_fd *old = &jobio_fds[fd];
      if (old->kind == JOBIO_FD_OWN) jobio_own_forget(fd);
      if (old->ofd) {
        uint32_t o = old->ofd;
        old->ofd = 0;
        jobio_ofd_release(b, o);
      }
    }
    struct stat st;
    int slot = -1;
    uint8_t prov = 0;
    /* by path first (no system call); confirmed by the device later (jobio_fd_confirm). A path
     * absolute or relative to the working directory is walked once, for its mount and its hash. */
    struct jobio_pathwalk pw;
    int walked = path && path[0] && (path[0] == '/' || dirfd == AT_FDCWD);
    if (walked) jobio_pw_walk(path, &pw);
    if (path && path[0] && !(flags & O_PATH)) {
      slot = walked ? jobio_slot_walked(path, &pw, (flags & O_CREAT) ? JOBIO_OPENS_CREAT : JOBIO_OPENS) : jobio_path_slot(0, 0, dirfd, path, 0, 0);
      if (slot >= 0) prov = JOBIO_FDF_PROV;
    }
    if (!prov) {
      if (jobio_sys_fstat(fd, &st) == 0)
        slot = jobio_path_slot(1, st.st_dev, dirfd, path, 1, st.st_mode);
      else
        slot = jobio_path_slot(0, 0, dirfd, path, 0, 0);
    }
    if (slot < 0) {
      b->ignored++;
      jobio_fd_set(fd, JOBIO_FD_IGNORED, 0, 0, 0, JOBIO_POS_UNKNOWN);
    } else {
      /* its path's hash: stats of the path before are used (yellow), and so are those while it is open */
      uint64_t h = path ? (walked ? pw.hash : jobio_path_hash(dirfd, path)) : 0;
      uint32_t pent = 0;
      if (h) {
        pent = jobio_path_opened(h);
        jobio_stat_opened(b, h);
      }
      uint32_t ofd = jobio_ofd_alloc((uint8_t)call, (uint16_t)slot, est, c->t0 != 0, pent);
      int64_t pos = ((flags & O_APPEND) || (fdflags & JOBIO_FDF_STDIO)) ? JOBIO_POS_UNKNOWN : 0;
      /* made now; its class is counted when it is decided (at its last close, jobio_ofd_release), or
       * now without a record to keep it. (By the slot's offset that the descriptor's entry gets too:
       * one multiply for both.) */
      uint32_t moff = JOBIO_MOFF((uint16_t)slot);
      struct jobio_mstats *m = (struct jobio_mstats *)(void *)((char *)b + moff);
      jobio_count_made(m, call);
      jobio_fd_set(fd, JOBIO_FD_FILE, (uint16_t)slot, ofd, (uint8_t)(fdflags | prov | (ofd ? 0 : JOBIO_FDF_SAT)), pos);
      if (!ofd) jobio_count_decided(m, call, JOBIO_RED, JOBIO_REASON_OPEN_NOTHING, est, c->t0 != 0);
      if (c->t0) {
        /* its duration and estimated time now, in the frame it was made in (its class's time waits) */
        jobio_max_store(&m->max.call_ns[call], t->last_dt);
        jobio_count_made_time(m, call, est);
      }
      /* opened by MPI_File_open on every rank: only the aggregators may move its bytes */
      if (t->collective) jobio_ofd_mark_unseen(fd);
    }
  }
  t->busy--;
  errno = saved;
  if (t1)
    jobio_after(t1);
  else
    jobio_tick_untimed();
}

/* After close (the descriptor is released even when close fails, except EBADF: it was not open). */
void jobio_rec_close(struct jobio_ctx *c, int fd, int slot, int r);
void jobio_rec_close(struct jobio_ctx *c, int fd, int slot, int r) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int saved = errno;
  if (slot == -2) {
    if (r == 0) jobio_own_forget(fd);
    errno = saved;
    return; /* the program closed one of our descriptors: invisible */
  }
  jobio_count_slot_reason(c, slot, JOBIO_CALL_CLOSE, r < 0 ? JOBIO_RED : JOBIO_GREEN, r < 0 ? jobio_fail_reason(saved) : -1, est);
  if ((unsigned)fd < jobio_fd_cap) {
    struct jobio_fd *e = &jobio_fds[fd];
    uint32_t ofd = e->ofd;
    jobio_fd_clear(fd);
    if (ofd) jobio_ofd_release(c->t->block, ofd);
  }
  errno = saved;
  if (t1)
    jobio_after(t1);
  else
    jobio_tick_untimed();
}

/* close_range / closefrom: every tracked descriptor in the range counts as one close. */
void jobio_rec_close_range(struct jobio_ctx *c, unsigned lo, unsigned hi, int r, int cloexec_only);
void jobio_rec_close_range(struct jobio_ctx *c, unsigned lo, unsigned hi, int r, int cloexec_only) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int saved = errno;
  struct jobio_block *b = c->t->block;
  if (r != 0) {
    b->ignored++;
  } else if (!cloexec_only) {
    uint32_t end = jobio_fd_hwm();
    if (end > jobio_fd_cap) end = jobio_fd_cap;
    if (hi < end) end = hi + 1;
    int timed = c->t0 != 0;
    for (uint32_t fd = lo; fd < end; fd++) {
      struct jobio_fd *e = &jobio_fds[fd];
      switch (e->kind) {
        case JOBIO_FD_FILE:
          jobio_count(jobio_ms(b, e->slot), JOBIO_CALL_CLOSE, JOBIO_GREEN, est, timed);
          timed = 0;
          break;
        case JOBIO_FD_OWN: jobio_own_forget((int)fd); break;
        case JOBIO_FD_UNKNOWN: break;
        default: b->ignored++; break;
      }
      uint32_t ofd = e->ofd;
      if (e->kind != JOBIO_FD_UNKNOWN || ofd) jobio_fd_clear((int)fd);
      if (ofd) jobio_ofd_release(b, ofd);
    }
  }
  errno = saved;
  if (t1)
    jobio_after(t1);
  else
    jobio_tick_untimed();
}

/* dup, dup2, dup3, fcntl(F_DUPFD*): newfd refers to oldfd's open file (counted as one open). */
void jobio_rec_alias(struct jobio_ctx *c, int oldfd, int newfd);
void jobio_rec_alias(struct jobio_ctx *c, int oldfd, int newfd) {
  if (oldfd == newfd || newfd < 0) return;
  int saved = errno;
  struct jobio_block *b = c->t->block;
  c->t->busy++;
  if ((unsigned)newfd < jobio_fd_cap) {
    struct jobio_fd *ne = &jobio_fds[newfd];
    if (ne->kind == JOBIO_FD_OWN) jobio_own_forget(newfd);
    uint32_t o = ne->ofd;
    jobio_fd_clear(newfd);
    if (o) jobio_ofd_release(b, o); /* dup2 over an open file closes it */
  }
  if ((unsigned)oldfd < jobio_fd_cap && (unsigned)newfd < jobio_fd_cap) {
    struct jobio_fd *oe = &jobio_fds[oldfd];
    if (oe->kind == JOBIO_FD_UNKNOWN) jobio_fd_learn(oldfd);
    if (oe->kind != JOBIO_FD_UNKNOWN && oe->kind != JOBIO_FD_OWN) {
      jobio_ofd_ref(oe->ofd);
      oe->pos = JOBIO_POS_UNKNOWN; /* the offset is shared from now on: asked of the kernel at each seek */
      oe->flags |= JOBIO_FDF_SHARED;
      jobio_fd_set(newfd, oe->kind, oe->slot, oe->ofd, (uint8_t)((oe->flags & (JOBIO_FDF_SAT | JOBIO_FDF_PROV)) | JOBIO_FDF_SHARED),
                   JOBIO_POS_UNKNOWN);
    }
  }
  c->t->busy--;
  errno = saved;
}

/* lseek: the offset before the call (tracked, or asked for when unknown). */
int64_t jobio_seek_pre(int fd, int whence);
int64_t jobio_seek_pre(int fd, int whence) {
  if ((unsigned)fd >= jobio_fd_cap) return -1;
  struct jobio_fd *e = &jobio_fds[fd];
  if (e->kind == JOBIO_FD_UNKNOWN) jobio_fd_learn(fd);
  if (e->kind != JOBIO_FD_FILE) return -1;
  if (whence == SEEK_CUR) return e->pos;
  if (e->pos >= 0 && !(e->flags & JOBIO_FDF_UNTRACKED)) return e->pos;
  int saved = errno;
  jobio_guard_enter();
  long p = jobio_sys_lseek(fd, 0, SEEK_CUR);
  jobio_guard_leave();
  errno = saved;
  return p;
}

/* Seek: backward or to the same offset red, forward yellow (docs/profiler.md "Classification"); failed red. */
void jobio_rec_seek(struct jobio_ctx *c, int fd, int64_t off, int whence, int64_t before, int64_t r);
void jobio_rec_seek(struct jobio_ctx *c, int fd, int64_t off, int whence, int64_t before, int64_t r) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  int cls;
  int64_t target = whence == SEEK_CUR ? off : (before >= 0 ? r - before : r);
  if (r < 0)
    cls = JOBIO_RED;
  else
    cls = target > 0 ? JOBIO_YELLOW : JOBIO_RED;
  /* with the offset before unknown, a red seek (to offset 0) is taken as backward */
  int zero = whence == SEEK_CUR ? off == 0 : (before >= 0 && r == before);
  int reason = r < 0 ? jobio_fail_reason(errno)
                     : (cls == JOBIO_YELLOW ? -1 : (zero ? JOBIO_REASON_ZERO_SEEK : JOBIO_REASON_BACKWARD_SEEK));
  struct jobio_fd *e;
  if ((unsigned)fd < jobio_fd_cap && (e = &jobio_fds[fd])->kind == JOBIO_FD_FILE) {
    jobio_count_reason(jobio_ms(c->t->block, e->slot), JOBIO_CALL_SEEK, cls, reason, est, c->t0 != 0);
    if (r >= 0 && !(e->flags & JOBIO_FDF_UNTRACKED)) e->pos = r;
  } else {
    int saved = errno;
    int slot = jobio_fd_slot(fd);
    if (slot >= 0 && (unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_NET) slot = -1;
    errno = saved;
    jobio_count_slot_reason(c, slot, JOBIO_CALL_SEEK, cls, reason, est);
    errno = saved;
  }
  jobio_after(t1);
}
