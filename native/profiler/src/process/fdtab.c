/*
 * Descriptor state: a flat array indexed by fd (mount slot, kind, tracked offset, open record) and
 * a pool of open-file records shared by dup aliases. Both are reserved once (MAP_NORESERVE) and
 * touched page by page; nothing is allocated per call.
 */
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "process/fdtab.h"

#include "base/log.h"
#include "base/own.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/mounts.h"
#include "process/net_peers.h"
#include "process/stattab.h"
#include "process/thread.h"
#include "transport/transport.h"

struct jobio_fd *jobio_fds;
uint32_t jobio_fd_cap;
uint32_t jobio_hwm; /* highest fd ever given state + 1 */

static struct jobio_ofd *jobio_ofds;
static uint32_t jobio_ofd_cap;
static uint64_t jobio_ofd_head; /* Treiber stack of free records: (tag << 32) | index */
static uint32_t jobio_ofd_bump = 1;

/* What the log and the transport tell of their own descriptors (base/own.h): invisible while ours. */
static void jobio_own_heard(int fd, enum jobio_own_event event) {
  switch (event) {
    case JOBIO_OWN_OPENED:
      if (jobio_fds) jobio_fd_set(fd, JOBIO_FD_OWN, 0, 0, 0, JOBIO_POS_UNKNOWN);
      break;
    case JOBIO_OWN_CLOSED: jobio_fd_clear(fd); break;
    case JOBIO_OWN_REPLACED: /* (the program's call that replaced it may have set the entry already) */
      if ((unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_OWN) jobio_fd_clear(fd);
      break;
  }
}

void jobio_fdtab_init(void) {
  struct rlimit rl;
  uint64_t cap = JOBIO_FD_MAX;
  if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
      rl.rlim_max < cap)
    cap = rl.rlim_max < 1024 ? 1024 : rl.rlim_max;
  if (cap < JOBIO_HIGH_FD + 64) cap = JOBIO_HIGH_FD + 64;
  struct jobio_fd *fds = jobio_sys_mmap(cap * sizeof(struct jobio_fd));
  struct jobio_ofd *ofds = jobio_sys_mmap((cap + 1) * sizeof(struct jobio_ofd));
  if (!fds || !ofds) {
    jobio_log("cannot reserve the descriptor table, not tracing", (long)cap);
    return;
  }
  for (uint32_t i = 0; i < 3; i++) fds[i].pos = JOBIO_POS_UNKNOWN;
  jobio_ofds = ofds;
  jobio_ofd_cap = (uint32_t)cap + 1;
  jobio_fd_cap = (uint32_t)cap;
  __atomic_store_n(&jobio_fds, fds, __ATOMIC_RELEASE);
  jobio_own_listen(jobio_own_heard);
}

uint32_t jobio_fd_hwm(void) { return __atomic_load_n(&jobio_hwm, __ATOMIC_RELAXED); }

/* The program closed or replaced one of our descriptors: the log and the transport forget it. */
void jobio_own_forget(int fd) {
  jobio_log_forget(fd);
  jobio_transport_forget(fd);
}

/* Learn what an unseen descriptor is (once): its kind and mount slot. Returns the kind. */
int jobio_fd_learn(int fd) {
  if (fd < 0) return JOBIO_FD_UNKNOWN;
  struct stat st;
  int saved = errno;
  jobio_guard_enter();
  int kind = JOBIO_FD_UNKNOWN;
  int slot = 0;
  if (jobio_sys_fstat(fd, &st) == 0) {
    slot = jobio_slot_for_fd(fd, &st);
    if (slot == -3) {
      kind = JOBIO_FD_NET;
      slot = jobio_net_fd_slot(fd);
      if (slot < 0) kind = JOBIO_FD_IGNORED, slot = 0;
    } else if (slot < 0) {
      kind = JOBIO_FD_IGNORED;
      slot = 0;
    } else {
      kind = JOBIO_FD_FILE;
    }
    if ((unsigned)fd < jobio_fd_cap) jobio_fd_set(fd, (uint8_t)kind, (uint16_t)slot, 0, 0, JOBIO_POS_UNKNOWN);
  }
  jobio_guard_leave();
  errno = saved;
  return kind;
}

/* >= 0 slot, -1 ignored (or unknown descriptor), -2 invisible (ours). */
int jobio_fd_slot(int fd) {
  if ((unsigned)fd >= jobio_fd_cap) {
    /* beyond the table: learn every time (rare) */
    if (fd < 0) return -1;
    struct stat st;
    int saved = errno;
    jobio_guard_enter();
    int slot = jobio_sys_fstat(fd, &st) == 0 ? jobio_slot_for_fd(fd, &st) : -1;
    jobio_guard_leave();
    errno = saved;
    return slot == -3 ? jobio_net_fd_slot(fd) : slot;
  }
  struct jobio_fd *e = &jobio_fds[fd];
  int kind = e->kind;
  if (kind == JOBIO_FD_UNKNOWN) kind = jobio_fd_learn(fd);
  switch (kind) {
    case JOBIO_FD_FILE:
    case JOBIO_FD_NET: return e->slot;
    case JOBIO_FD_OWN: return -2;
    default: return -1;
  }
}

/* ---------------- open-file records ---------------- */
uint32_t jobio_ofd_alloc(uint8_t call, uint16_t slot, uint64_t time_est, int sampled, uint32_t path_ent) {
  uint32_t idx = 0;
  uint64_t h = __atomic_load_n(&jobio_ofd_head, __ATOMIC_ACQUIRE);
  while ((uint32_t)h) {
    uint32_t i = (uint32_t)h;
    uint64_t nh = ((h >> 32) + 1) << 32 | jobio_ofds[i].next_free;
    if (__atomic_compare_exchange_n(&jobio_ofd_head, &h, nh, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      idx = i;
      break;
    }
  }
  if (!idx) {
    idx = __atomic_fetch_add(&jobio_ofd_bump, 1, __ATOMIC_RELAXED);
    if (idx >= jobio_ofd_cap) {
      jobio_path_closed(path_ent); /* no record to give it back */
      return 0;
    }
  }
  struct jobio_ofd *o = &jobio_ofds[idx];
  o->call = call;
  o->slot = slot;
  o->bytes = 0;
  o->time_est = time_est;
  o->sampled = (uint8_t)(sampled != 0);
  o->unseen = 0;
  o->used = 0;
  o->path_ent = path_ent;
  __atomic_store_n(&o->refs, 1, __ATOMIC_RELEASE);
  return idx;
}

void jobio_ofd_ref(uint32_t ofd) {
  if (ofd) __atomic_fetch_add(&jobio_ofds[ofd].refs, 1, __ATOMIC_RELAXED);
}

/* Drop one reference; the last one classifies the open (docs/profiler.md "Classification") into block b. */
void jobio_ofd_release(struct jobio_block *b, uint32_t ofd) {
  if (!ofd || ofd >= jobio_ofd_cap) return;
  struct jobio_ofd *o = &jobio_ofds[ofd];
  if (__atomic_fetch_sub(&o->refs, 1, __ATOMIC_ACQ_REL) != 1) return;
  uint64_t bytes = __atomic_load_n(&o->bytes, __ATOMIC_RELAXED);
  jobio_path_closed(o->path_ent);
  int cls = bytes == 0 ? JOBIO_RED : (bytes < jobio_cfg.small ? JOBIO_YELLOW : JOBIO_GREEN);
  int reason = cls == JOBIO_RED ? JOBIO_REASON_OPEN_NOTHING : -1;
  if (cls != JOBIO_GREEN && (o->unseen || __atomic_load_n(&jobio_g.io_uring_setups, __ATOMIC_RELAXED))) {
    /* its bytes went through mmap or async I/O, which are not counted: not "nothing moved" */
    cls = JOBIO_YELLOW;
    reason = JOBIO_REASON_OPEN_UNSEEN;
  } else if (cls == JOBIO_RED && o->used) {
    /* no byte moved, yet the descriptor did its work (a directory synced or used for *at calls):
     * that is what it was opened for, no open to avoid (a directory listed stays as listed) */
    cls = JOBIO_GREEN;
    reason = -1;
  }
  if (b) jobio_count_decided(jobio_ms(b, o->slot), o->call, cls, reason, o->time_est, o->sampled);
  uint64_t h = __atomic_load_n(&jobio_ofd_head, __ATOMIC_ACQUIRE);
  uint64_t nh;
  do {
    o->next_free = (uint32_t)h;
    nh = ((h >> 32) + 1) << 32 | ofd;
  } while (!__atomic_compare_exchange_n(&jobio_ofd_head, &h, nh, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
}

/* Bytes moved through fd, counted toward its open until the small threshold is reached. */
void jobio_ofd_note_bytes(int fd, struct jobio_fd *e, uint64_t n) {
  (void)fd;
  uint32_t ofd = e->ofd;
  if (!ofd || ofd >= jobio_ofd_cap) {
    e->flags |= JOBIO_FDF_SAT; /* nothing to classify through this descriptor */
    jobio_fd_sync(e);
    return;
  }
  uint64_t now = __atomic_add_fetch(&jobio_ofds[ofd].bytes, n, __ATOMIC_RELAXED);
  if (now >= jobio_cfg.small) {
    e->flags |= JOBIO_FDF_SAT; /* decided green: from now on counted inline */
    jobio_fd_sync(e);
  }
}

/*
 * A descriptor whose mount was taken from its path at open (no fstat there): confirm it by device,
 * from the program's own fstat answer when there is one (have_st), else with one fstat. A path that
 * led elsewhere (a symlink into another mount) moves the descriptor, and its open, to the right mount.
 */
void jobio_fd_confirm(int fd, int have_st, uint64_t dev, mode_t mode) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  struct jobio_fd *e = &jobio_fds[fd];
  if (!(e->flags & JOBIO_FDF_PROV) || e->kind != JOBIO_FD_FILE) return;
  int saved = errno;
  jobio_guard_enter();
  struct stat st;
  int ok = 1;
  if (have_st) {
    memset(&st, 0, sizeof st);
    st.st_dev = (dev_t)dev;
    st.st_mode = mode;
  } else {
    ok = jobio_sys_fstat(fd, &st) == 0;
  }
  e->flags &= (uint8_t)~JOBIO_FDF_PROV;
  if (ok) {
    int slot = jobio_slot_for_fd(fd, &st);
    /* a component's descriptor stays that component's on the mount its device names */
    if (slot >= 0) slot = jobio_component_twin(slot, jobio_slot_component(e->slot));
    if (slot < 0) {
      e->kind = JOBIO_FD_IGNORED; /* a fifo or socket reached by path: not file I/O (its open stays counted) */
      /* its bytes move through a pipe, not the file system: its open is not one that moved no byte
       * (a dd reading a FIFO was red "moved no byte", its wait for the writer the job's top finding) */
      if (e->ofd && e->ofd < jobio_ofd_cap) __atomic_store_n(&jobio_ofds[e->ofd].bytes, jobio_cfg.small, __ATOMIC_RELAXED);
    } else if (slot != e->slot) {
      e->slot = (uint16_t)slot;
      if (e->ofd && e->ofd < jobio_ofd_cap) jobio_ofds[e->ofd].slot = (uint16_t)slot;
    }
    jobio_fd_sync(e);
  }
  jobio_guard_leave();
  errno = saved;
}

/* The descriptor's file was mapped or given to async I/O: its open's bytes are partly unseen. */
void jobio_ofd_mark_unseen(int fd) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  uint32_t ofd = jobio_fds[fd].ofd;
  if (ofd && ofd < jobio_ofd_cap) jobio_ofds[ofd].unseen = 1;
}

void jobio_ofd_mark_used(int fd) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  uint32_t ofd = jobio_fds[fd].ofd;
  if (ofd && ofd < jobio_ofd_cap) jobio_ofds[ofd].used = 1;
}

void jobio_fds_mark_inherited(int all) {
  if (!jobio_fds) return;
  uint32_t hwm = jobio_fd_hwm();
  if (hwm > jobio_fd_cap) hwm = jobio_fd_cap;
  int saved = errno;
  for (uint32_t fd = 0; fd < hwm; fd++) {
    uint32_t ofd = jobio_fds[fd].ofd;
    if (!ofd || ofd >= jobio_ofd_cap || jobio_ofds[ofd].unseen) continue;
    if (!all) {
      long fl = jobio_sys_fcntl((int)fd, F_GETFD, 0);
      if (fl < 0 || (fl & FD_CLOEXEC)) continue;
    }
    jobio_ofds[ofd].unseen = 1;
  }
  errno = saved;
}

/* Exit or exec: every open still pending is decided with the bytes it moved so far. */
void jobio_fds_finalize(struct jobio_block *b) {
  uint32_t hwm = jobio_fd_hwm();
  if (hwm > jobio_fd_cap) hwm = jobio_fd_cap;
  for (uint32_t fd = 0; fd < hwm; fd++) {
    struct jobio_fd *e = &jobio_fds[fd];
    uint32_t ofd = e->ofd;
    if (ofd) {
      e->ofd = 0;
      e->flags |= JOBIO_FDF_SAT;
      jobio_fd_sync(e);
      jobio_ofd_release(b, ofd);
    }
  }
}

/* After fork: offsets are shared with the other process (unknown from now on); in the child the
 * opens belong to the parent (it classifies them), and the profiler's inherited socket is closed. */
void jobio_fds_after_fork(int child) {
  if (!jobio_fds) return;
  uint32_t hwm = jobio_fd_hwm();
  if (hwm > jobio_fd_cap) hwm = jobio_fd_cap;
  if (!child) jobio_fds_mark_inherited(1);
  for (uint32_t fd = 0; fd < hwm; fd++) {
    struct jobio_fd *e = &jobio_fds[fd];
    e->pos = JOBIO_POS_UNKNOWN;
    if (child) {
      e->ofd = 0;
      e->flags |= JOBIO_FDF_SAT;
      jobio_fd_sync(e);
    }
  }
  if (child) {
    jobio_sys_zero(jobio_ofds, (size_t)jobio_ofd_cap * sizeof(struct jobio_ofd));
    jobio_ofd_head = 0;
    jobio_ofd_bump = 1;
  }
}
