/* Descriptors (fdtab.c): what each descriptor is, and the open file descriptions opened by this process. */
#ifndef JOBIO_FDTAB_H
#define JOBIO_FDTAB_H
#include "process/mounts.h"
#include "process/thread.h"

#pragma GCC visibility push(hidden)

enum jobio_fd_kind {
  JOBIO_FD_UNKNOWN = 0, /* never seen: learnt with fstat at first use */
  JOBIO_FD_FILE = 1,    /* counted on slot */
  JOBIO_FD_IGNORED = 2, /* pipe, socket (network off), pseudo file system, anon inode */
  JOBIO_FD_OWN = 3,     /* the profiler's own descriptor: invisible */
  JOBIO_FD_NET = 4,     /* socket with JOBIO_NETWORK=1: counted on the network slot */
};
#define JOBIO_FDF_SAT 0x1   /* the open behind it already moved >= small threshold */
#define JOBIO_FDF_STDIO 0x2 /* a FILE* sits on it: the kernel offset is not tracked */
#define JOBIO_FDF_PROV 0x4  /* mount taken from the path at open: confirmed by the device at the
                               program's own fstat, or with one fstat before its first transfer */
#define JOBIO_FDF_SHARED 0x8 /* a dup alias (either end): its offset moves through the others too, so
                                it is asked of the kernel at each seek, never tracked */
/* the kernel offset is not tracked (pos stays unknown): a FILE* on it, or shared with an alias */
#define JOBIO_FDF_UNTRACKED (JOBIO_FDF_STDIO | JOBIO_FDF_SHARED)
/*
 * A socket's last addressed call (a datagram's destination or source): its IPv4 address (as in the
 * call's sockaddr_in) and the byte offset of that peer's counters in a thread block (JOBIO_MOFF of
 * its slot; 0: none remembered). The offset is the half of the word that holds pos's low bits,
 * which are 0 in an unknown pos: a socket's entry (pos unknown) starts with none remembered, and
 * one test of the offset says whether the address may be compared.
 */
struct jobio_net_last {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint32_t moff;
  uint32_t addr;
#else
  uint32_t addr;
  uint32_t moff;
#endif
};
struct jobio_fd {
  uint32_t ofd; /* index of the open-file record (0: none, e.g. inherited) */
  uint16_t slot;
  uint8_t kind;
  uint8_t flags;
  uint32_t moff; /* kind FILE: byte offset of the slot's counters in a thread block, else 0 */
  uint32_t xoff; /* moff once the open is decided (JOBIO_FDF_SAT): transfers counted inline; else 0 */
  union {
    int64_t pos;       /* kind FILE: tracked file offset for seek classification; negative: unknown */
    struct jobio_net_last net_last; /* kind NET: the peer of its last addressed call */
  };
  uint64_t pad; /* (32 bytes: an entry's address is the descriptor shifted, one instruction fewer) */
};
_Static_assert(sizeof(struct jobio_fd) == 32, "a power of two");
/* An unknown offset. Transfers add to the offset without looking (one add on the hot path): an
 * unknown one stays negative for the first 2^62 bytes moved. */
#define JOBIO_POS_UNKNOWN (INT64_MIN / 2)
_Static_assert((JOBIO_POS_UNKNOWN & 0xffffffff) == 0, "an unknown pos remembers no peer (jobio_net_last)");
#define JOBIO_MOFF(slot) \
  ((uint32_t)(offsetof(struct jobio_block, m) + (size_t)(slot) * sizeof(struct jobio_mstats)))
_Static_assert(sizeof(struct jobio_block) < (1ull << 32), "block offsets fit moff");
/* Recompute the derived fields after kind, slot or flags changed. */
static inline void jobio_fd_sync(struct jobio_fd *e) {
  uint32_t mo = e->kind == JOBIO_FD_FILE ? JOBIO_MOFF(e->slot) : 0;
  e->moff = mo;
  e->xoff = (e->flags & JOBIO_FDF_SAT) ? mo : 0;
}
/* An open file description opened by this process: its open is classified when the last
 * descriptor referring to it is closed (dup aliases share it), or at exit/exec. */
struct jobio_ofd {
  uint32_t refs;
  uint32_t next_free;
  uint16_t slot;
  uint8_t call; /* JOBIO_CALL_OPEN or JOBIO_CALL_CREATE */
  uint8_t sampled;
  uint8_t unseen; /* bytes may have moved through a path the profiler does not see (mmap, async I/O,
                     another process that got a descriptor of it: a child, an exec'd image) */
  uint8_t used;   /* its descriptor did what it was opened for without moving bytes: synced, its
                     attributes changed, or the directory of *at calls (gzip's "."): not red */
  uint8_t pad[2];
  uint64_t bytes;
  uint64_t time_est;
  uint32_t path_ent; /* its path's entry in the table of paths open now (stattab.h; 0: none) */
  uint32_t pad2;
};
extern struct jobio_fd *jobio_fds;
extern uint32_t jobio_fd_cap;

void jobio_fdtab_init(void);
int jobio_fd_learn(int fd); /* returns the kind */
extern uint32_t jobio_hwm; /* highest fd ever given state + 1 */
uint32_t jobio_fd_hwm(void);
/* (inline: an open and a close set and clear one entry each) */
static inline void jobio_fd_track_hwm(int fd) {
  uint32_t want = (uint32_t)fd + 1;
  uint32_t cur = __atomic_load_n(&jobio_hwm, __ATOMIC_RELAXED);
  while (cur < want && !__atomic_compare_exchange_n(&jobio_hwm, &cur, want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}
/* pos: the descriptor's offset, or JOBIO_POS_UNKNOWN */
static inline void jobio_fd_set(int fd, uint8_t kind, uint16_t slot, uint32_t ofd, uint8_t flags, int64_t pos) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  struct jobio_fd *e = &jobio_fds[fd];
  e->ofd = ofd;
  e->slot = slot;
  e->flags = flags;
  e->pos = pos;
  e->kind = kind;
  jobio_fd_sync(e);
  jobio_fd_track_hwm(fd);
}
static inline void jobio_fd_clear(int fd) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  struct jobio_fd *e = &jobio_fds[fd];
  e->kind = JOBIO_FD_UNKNOWN;
  e->ofd = 0;
  e->flags = 0;
  e->slot = 0;
  e->moff = 0;
  e->xoff = 0;
  e->pos = JOBIO_POS_UNKNOWN;
}
/* A record for an open (0: none left), of the path with this entry in the table of paths open now
 * (jobio_path_opened; 0: none), given back by the record's last close. */
uint32_t jobio_ofd_alloc(uint8_t call, uint16_t slot, uint64_t time_est, int sampled, uint32_t path_ent);
void jobio_ofd_ref(uint32_t ofd);
void jobio_ofd_release(struct jobio_block *b, uint32_t ofd);
void jobio_ofd_note_bytes(int fd, struct jobio_fd *e, uint64_t n);
void jobio_ofd_mark_unseen(int fd);
void jobio_ofd_mark_used(int fd);
/* A path relative to a directory descriptor: the directory's open served the call (gzip opens "."
 * to create, stat and delete in it by *at calls, and syncs it with --synchronous). */
static inline void jobio_dirfd_used(int dirfd, const char *path) {
  if (dirfd >= 0 && path && path[0] != '/') jobio_ofd_mark_used(dirfd);
}
/* Another process gets descriptors of our opens (fork, vfork: all of them; exec, posix_spawn: those
 * not close-on-exec): bytes they move are not ours to see, so those opens are not "nothing moved". */
void jobio_fds_mark_inherited(int all);
void jobio_fd_confirm(int fd, int have_st, uint64_t dev, mode_t mode);
void jobio_fds_finalize(struct jobio_block *b);
void jobio_fds_after_fork(int child);
/* The program closed or replaced one of the profiler's own descriptors (the log's, the socket). */
void jobio_own_forget(int fd);
/* Slot of a descriptor for a non-transfer call: >= 0 slot, -1 ignored, -2 invisible. */
int jobio_fd_slot(int fd);
/* The slot for a path and/or device (as jobio_slot_for, mounts.c), a path relative to a directory
 * descriptor included: >= 0 slot, -1 ignored, -3 a socket to count as network. */
static inline int jobio_path_slot(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode) {
  int s = jobio_slot_for(have_dev, dev, dirfd, path, have_mode, mode);
  if (s != JOBIO_SLOT_AT_DIRFD) return s;
  s = jobio_fd_slot(dirfd);
  return s == -2 ? -1 : jobio_component_slot(s, path);
}

#pragma GCC visibility pop
#endif /* JOBIO_FDTAB_H */
