/*
 * jobio profiler: internal declarations shared by the wrapper files and the hot-path record
 * functions (static inline). Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script that exports only the symbols of symbols.def.
 *
 * Rules for code in this library (DESIGN 3.6):
 *   - never call a libc I/O function by name (it would bind to our own wrapper): use REAL(name) or
 *     the raw jobio_sys_* helpers (syscall(2));
 *   - the wrapper path takes no lock, calls no malloc and no stdio, and leaves errno untouched;
 *     slow paths (unknown fd, open, flush) save and restore errno and run with the per-thread guard
 *     set, so any wrapped call they make (or that dlsym makes) is forwarded uncounted;
 *   - nothing ever calls exit/abort or blocks on the exporter.
 */
#ifndef JOBIO_H
#define JOBIO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../include/jobio_protocol.h"

#define JOBIO_EXPORT __attribute__((visibility("default")))
#define JOBIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define JOBIO_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- the declaration table (symbols.def) ---- */
enum jobio_sym {
#define JOBIO_SYM(name, ret, params) JOBIO_SYM_##name,
#include "symbols.def"
#undef JOBIO_SYM
  JOBIO_SYM_COUNT
};
#define JOBIO_SYM(name, ret, params) typedef ret(*jobio_fn_##name) params;
#include "symbols.def"
#undef JOBIO_SYM

struct jobio_symbol {
  const char *name;
  void **real; /* where the resolved next definition is kept */
};
extern void *jobio_real[JOBIO_SYM_COUNT];
extern const struct jobio_symbol jobio_symbols[JOBIO_SYM_COUNT];
void *jobio_resolve_slow(int sym);
void jobio_resolve_all(void);

static inline void *jobio_resolve(int sym) {
  void *p = __atomic_load_n(&jobio_real[sym], __ATOMIC_RELAXED);
  if (JOBIO_UNLIKELY(!p)) p = jobio_resolve_slow(sym);
  return p;
}
/* The real (next) definition of a wrapped symbol, typed. */
#define REAL(name) ((jobio_fn_##name)jobio_resolve(JOBIO_SYM_##name))

/* ---- limits ---- */
#define JOBIO_MAX_SLOTS 64     /* mounts with activity per process (stats slots) */
#define JOBIO_MAX_MOUNTS 1024  /* mountinfo entries kept */
#define JOBIO_FD_MAX (1u << 20) /* descriptors tracked in the flat table */
#define JOBIO_STAT_TABLE 4096  /* pending successful stats (power of two) */
#define JOBIO_STAT_PROBE 8
#define JOBIO_HIGH_FD 1000     /* the profiler's own descriptors are moved at or above this */

/* ---- per mount statistics: the same layout as the tail of struct jobio_frame_mount ---- */
struct jobio_mstats {
  struct jobio_call_stats call[JOBIO_CALL_COUNT];
  struct jobio_size_stats sized[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT];
  uint64_t pow2_calls[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  uint64_t pow2_bytes[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
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
  char pad2[JOBIO_BLOCK_HEAD - 32];
  struct jobio_mstats m[JOBIO_MAX_SLOTS];
};

/* Per-thread state, initial-exec TLS (one %fs-relative access, no __tls_get_addr). */
struct jobio_tls {
  struct jobio_block *block; /* NULL until the thread's first counted call */
  uint32_t busy;             /* low 16 bits: guard depth; JOBIO_BUSY_VFORK: inside vfork */
  uint32_t exiting;          /* thread is past its TLS destructor: forward uncounted */
  uint64_t countdown;        /* calls until the next timed one (a geometric gap: Bernoulli(p) per call) */
  uint64_t gap_weight;       /* 1/p (32.32 fixed point) of the gap being counted down */
  uint64_t rng;              /* xorshift64 state for drawing gaps */
  uint64_t thr;              /* p = thr / 2^32; thr = 2^32 / sample_every */
  uint64_t weight_fp;        /* 1/p for the next gaps, 32.32 fixed point (Horvitz-Thompson weight) */
  double log1mp;             /* log(1 - p), for drawing gaps */
  uint64_t win_start;        /* JOBIO_SAMPLE_MAX_PER_SEC window: start and timed calls in it */
  uint64_t win_sampled;
  uint64_t dev_cache;        /* last st_dev looked up, its slot, and the mount generation */
  int32_t dev_cache_slot;
  uint32_t dev_cache_gen;
};
#define JOBIO_BUSY_VFORK 0x10000u
extern __thread struct jobio_tls jobio_t __attribute__((tls_model("initial-exec")));

/* ---- descriptors ---- */
enum jobio_fd_kind {
  JOBIO_FD_UNKNOWN = 0, /* never seen: learnt with fstat at first use */
  JOBIO_FD_FILE = 1,    /* counted on slot */
  JOBIO_FD_IGNORED = 2, /* pipe, socket (network off), pseudo file system, anon inode */
  JOBIO_FD_OWN = 3,     /* the profiler's own descriptor: invisible */
  JOBIO_FD_NET = 4,     /* socket with JOBIO_NETWORK=1: counted on the network slot */
};
#define JOBIO_FDF_SAT 0x1   /* the open behind it already moved >= small threshold */
#define JOBIO_FDF_STDIO 0x2 /* a FILE* sits on it: the kernel offset is not tracked */
struct jobio_fd {
  uint32_t ofd; /* index of the open-file record (0: none, e.g. inherited) */
  uint16_t slot;
  uint8_t kind;
  uint8_t flags;
  int64_t pos; /* tracked file offset for seek classification, -1 unknown */
};
/* An open file description opened by this process: its open is classified when the last
 * descriptor referring to it is closed (dup aliases share it), or at exit/exec. */
struct jobio_ofd {
  uint32_t refs;
  uint32_t next_free;
  uint16_t slot;
  uint8_t call; /* JOBIO_CALL_OPEN or JOBIO_CALL_CREATE */
  uint8_t sampled;
  uint32_t pad;
  uint64_t bytes;
  uint64_t time_est;
};
extern struct jobio_fd *jobio_fds;
extern uint32_t jobio_fd_cap;

/* ---- configuration and process state ---- */
struct jobio_config {
  uint64_t small;       /* JOBIO_SMALL_THRESHOLD */
  uint64_t large;       /* JOBIO_LARGE_THRESHOLD */
  uint32_t sample_every;
  uint32_t max_per_sec; /* 0: no cap */
  uint64_t timeframe_ns;
  int network;
  int active;           /* this process is traced */
  int add_bypass_env;   /* add JOBIO_BYPASSED to the environment of exec'd children */
  int debug;
  char socket_path[108];
  char error_log[256];
};
extern struct jobio_config jobio_cfg;

struct jobio_state {
  int init_state; /* 0 none, 1 in progress, 2 done */
  pid_t pid;
  uint64_t start_rt_ns;
  uint64_t start_mono_ns;
  uint64_t next_flush_ns;
  char exe[64];
  char jobid[64];
  char jobid_source[16];
  char bypass_name[64];
  int from_constructor; /* 1 when the constructor (not a wrapper) initialised */
};
extern struct jobio_state jobio_g;

/* ---- functions (defined in the .c files) ---- */
void jobio_init(int from_constructor);
int jobio_begin_slow(void);
uint64_t jobio_now_mono(void);
uint64_t jobio_now_coarse(void);
void jobio_tick(uint64_t now, int timed);
void jobio_sample_window(struct jobio_tls *t, uint64_t now);
void jobio_log(const char *msg, long num);
void jobio_debug(const char *msg, const char *arg);
void jobio_guard_enter(void);
void jobio_guard_leave(void);
struct jobio_block *jobio_block_claim(void);
struct jobio_block *jobio_blocks_head(void);
void jobio_blocks_reset_child(struct jobio_block *keep);

/* raw system calls: never go through a wrapper */
long jobio_sys_open(int dirfd, const char *path, int flags, int mode);
long jobio_sys_close(int fd);
long jobio_sys_read(int fd, void *buf, size_t n);
long jobio_sys_write(int fd, const void *buf, size_t n);
long jobio_sys_fstat(int fd, struct stat *st);
long jobio_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags);
long jobio_sys_lseek(int fd, long off, int whence);
void *jobio_sys_mmap(size_t len);
void jobio_sys_munmap(void *p, size_t len);
void jobio_sys_zero(void *p, size_t len); /* replace with fresh zero pages */
long jobio_sys_fcntl(int fd, int cmd, long arg);
pid_t jobio_sys_getpid(void);

/* descriptors */
void jobio_fdtab_init(void);
int jobio_fd_learn(int fd); /* returns the kind */
void jobio_fd_set(int fd, uint8_t kind, uint16_t slot, uint32_t ofd, uint8_t flags, int64_t pos);
void jobio_fd_clear(int fd);
void jobio_fd_track_hwm(int fd);
uint32_t jobio_fd_hwm(void);
uint32_t jobio_ofd_alloc(uint8_t call, uint16_t slot, uint64_t time_est, int sampled);
void jobio_ofd_ref(uint32_t ofd);
void jobio_ofd_release(struct jobio_block *b, uint32_t ofd);
void jobio_ofd_note_bytes(int fd, struct jobio_fd *e, uint64_t n);
void jobio_fds_finalize(struct jobio_block *b);
void jobio_fds_after_fork(int child);
void jobio_own_fd(int fd);

/* mounts */
void jobio_mounts_init(void);
int jobio_slot_for(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode);
int jobio_slot_for_fd(int fd, const struct stat *st);
int jobio_network_slot(void);
int jobio_slot_mount(int slot, const char **path, const char **fstype, const char **source);
void jobio_cwd_changed(void);
void jobio_mounts_after_fork(void);

/* pending stats */
void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled);
void jobio_stat_opened(struct jobio_block *b, uint64_t hash);
void jobio_stats_finalize(struct jobio_block *b);
void jobio_stats_reset(void);
uint64_t jobio_path_hash(int dirfd, const char *path);

/* flush and transport */
void jobio_flush(uint32_t flags);
void jobio_flush_final(uint32_t flags);
void jobio_transport_forget(int fd);
void jobio_transport_after_fork(void);
uint64_t jobio_dropped(void);
void jobio_flush_after_fork(void);

/* process */
char *const *jobio_child_env(char *const envp[], char **scratch, size_t scratch_len);

/* ---- the hot path ---- */

/* A wrapper's context: whether its duration is measured, and when it started. */
struct jobio_ctx {
  struct jobio_tls *t;
  uint64_t t0; /* 0: not sampled */
  uint64_t w;  /* its weight 1/p (32.32 fixed point) when sampled */
};

static inline uint64_t jobio_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t jobio_next_gap(struct jobio_tls *t);

/*
 * Decide whether this call is timed: each call independently with probability p = 1/sample_every,
 * implemented as a countdown over geometric gaps (the same distribution, one decrement per call).
 */
static inline void jobio_start(struct jobio_ctx *c) {
  struct jobio_tls *t = c->t;
  if (JOBIO_UNLIKELY(--t->countdown == 0)) {
    c->w = t->gap_weight;
    t->countdown = jobio_next_gap(t);
    c->t0 = jobio_now();
  }
}

/* Should this call be counted? (false: forward only.) Does not take the time. */
static inline int jobio_begin_notime(struct jobio_ctx *c) {
  struct jobio_tls *t = &jobio_t;
  c->t = t;
  c->t0 = 0;
  if (JOBIO_UNLIKELY(!t->block || t->busy)) return jobio_begin_slow();
  return 1;
}

static inline int jobio_begin(struct jobio_ctx *c) {
  if (!jobio_begin_notime(c)) return 0;
  jobio_start(c);
  return 1;
}

/* The duration estimate of a sampled call, and the end time (0 if not sampled). */
static inline uint64_t jobio_stop(struct jobio_ctx *c, uint64_t *est) {
  if (!c->t0) {
    *est = 0;
    return 0;
  }
  uint64_t t1 = jobio_now();
  *est = (uint64_t)(((unsigned __int128)(t1 - c->t0) * c->w) >> 32);
  return t1;
}

/* After a timed call: a flush due? (and the JOBIO_SAMPLE_MAX_PER_SEC window, when set) */
static inline void jobio_after(uint64_t t1) {
  if (t1 && JOBIO_UNLIKELY((t1 >= __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED)) | (jobio_cfg.max_per_sec != 0)))
    jobio_tick(t1, 1);
}

/* (the flusher finds the slots with counts by looking: no per-call bookkeeping) */
static inline struct jobio_mstats *jobio_ms(struct jobio_block *b, unsigned slot) { return &b->m[slot]; }

static inline void jobio_count(struct jobio_mstats *m, int call, int cls, uint64_t est, int sampled) {
  m->call[call].calls[cls]++;
  if (sampled) {
    m->call[call].time_ns[cls] += est;
    m->call[call].sampled++;
  }
}

/* Count a call of type `call` and class `cls` on the slot (or ignored when slot < 0). */
static inline void jobio_count_slot(struct jobio_ctx *c, int slot, int call, int cls, uint64_t est) {
  struct jobio_block *b = c->t->block;
  if (slot < 0) {
    if (slot == -1) b->ignored++;
    return;
  }
  jobio_count(jobio_ms(b, (unsigned)slot), call, cls, est, c->t0 != 0);
}

static inline unsigned jobio_pow2_bin(uint64_t n) { return n ? 64u - (unsigned)__builtin_clzll(n) : 0u; }

/* A transfer of n bytes (n < 0: failed) on a file-system slot. Word offsets into the mstats are
 * computed once (dir is a constant in every caller), so the hot path is a handful of adds. */
#define JOBIO_W(field) (offsetof(struct jobio_mstats, field) / sizeof(uint64_t))
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
  const size_t calls0 = JOBIO_W(call[0].calls[0]) + (size_t)dir * (sizeof(struct jobio_call_stats) / 8);
  const size_t sized0 = JOBIO_W(sized[0][0]) + (size_t)dir * JOBIO_SIZE_COUNT * 3;
  const size_t p2c = JOBIO_W(pow2_calls[0][0]) + (size_t)dir * JOBIO_POW2_BINS;
  const size_t p2b = JOBIO_W(pow2_bytes[0][0]) + (size_t)dir * JOBIO_POW2_BINS;
  w[calls0 + (size_t)big * 2]++; /* calls[RED] or calls[GREEN] */
  uint64_t *sz = w + sized0 + (size_t)bin * 3;
  sz[0]++;
  sz[1] += n;
  w[p2c + p]++;
  w[p2b + p] += n;
  if (sampled) {
    w[calls0 + 3 + (size_t)big * 2] += est; /* time_ns[class] */
    w[calls0 + 6]++;                        /* sampled */
    sz[2] += est;
  }
}
_Static_assert(JOBIO_RED == 0 && JOBIO_GREEN == 2, "class index = 2 * big");
_Static_assert(offsetof(struct jobio_call_stats, time_ns) == 24 && offsetof(struct jobio_call_stats, sampled) == 48,
               "call stats layout");

void jobio_rec_xfer_other(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t est, int moves_pos);

/*
 * read/write family: dir is JOBIO_DIR_READ or JOBIO_DIR_WRITE (equal to JOBIO_CALL_READ/WRITE);
 * moves_pos: the call advances the file offset (read, write, readv, writev).
 */
static inline void jobio_rec_xfer(struct jobio_ctx *c, int fd, int dir, int64_t r, int moves_pos) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  struct jobio_fd *e;
  if (JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) && JOBIO_LIKELY((e = &jobio_fds[fd])->kind == JOBIO_FD_FILE)) {
    jobio_count_xfer(c, jobio_ms(c->t->block, e->slot), dir, r, est);
    if (r > 0) {
      if (!(e->flags & JOBIO_FDF_SAT)) jobio_ofd_note_bytes(fd, e, (uint64_t)r);
      if (moves_pos && e->pos >= 0) e->pos += r;
    }
  } else {
    jobio_rec_xfer_other(c, fd, dir, r, est, moves_pos);
  }
  jobio_after(t1);
}

/* Slot of a descriptor for a non-transfer call: >= 0 slot, -1 ignored, -2 invisible. */
int jobio_fd_slot(int fd);

_Static_assert((int)JOBIO_DIR_READ == (int)JOBIO_CALL_READ && (int)JOBIO_DIR_WRITE == (int)JOBIO_CALL_WRITE, "dir = call");

#endif /* JOBIO_H */
