/*
 * jobio profiler: internal declarations shared by the wrapper files and the hot-path record
 * functions (static inline). Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script that exports only the symbols of symbols.def.
 *
 * Rules for code in this library (docs/architecture.md "Rules of conduct"):
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
#include <aio.h>
#include <dirent.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
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

/* Everything declared from here on is internal: hidden declarations let the compiler address the
 * library's own variables directly (one rip-relative operand) instead of through the GOT. */
#pragma GCC visibility push(hidden)

#define JOBIO_EXPORT __attribute__((visibility("default")))
#define JOBIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define JOBIO_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* hot-path helpers: always inlined (the compiler would otherwise outline them past a few uses) */
#define JOBIO_HOT static inline __attribute__((always_inline))

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
#define JOBIO_STAT_BITS 12
#define JOBIO_STAT_TABLE 4096  /* pending successful stats (2^JOBIO_STAT_BITS) */
#define JOBIO_STAT_PROBE 8
#define JOBIO_HIGH_FD 1000     /* the profiler's own descriptors are moved at or above this */

/* ---- per mount statistics: the same layout as the tail of struct jobio_frame_mount ---- */
struct jobio_mstats {
  struct jobio_call_stats call[JOBIO_CALL_COUNT];
  struct jobio_size_stats sized[JOBIO_DIR_COUNT][JOBIO_SIZE_COUNT];
  uint64_t pow2_calls[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  uint64_t pow2_bytes[JOBIO_DIR_COUNT][JOBIO_POW2_BINS];
  struct jobio_mount_ext ext;
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

/* Per-thread state, initial-exec TLS (one %fs-relative access, no __tls_get_addr). */
struct jobio_tls {
  struct jobio_block *block; /* NULL until the thread's first counted call */
  uint32_t busy;             /* low 16 bits: guard depth; JOBIO_BUSY_VFORK: inside vfork; JOBIO_BUSY_NOBLOCK:
                                no block yet (or any more), so "busy == 0" alone means "count this call" */
  uint32_t exiting;          /* thread is past its TLS destructor: forward uncounted */
  uint64_t countdown;        /* calls until the next timed one, that one included */
  uint64_t gap_weight;       /* weight (1/p = the stratum length) of the upcoming timed call */
  uint64_t stratum_left;     /* calls of the current stratum from its timed call on, that call included (>= 1) */
  uint64_t rng;              /* LCG state for the position of the timed call in a stratum */
  uint64_t period;           /* stratum length for the strata started from now on (sample_every) */
  uint64_t win_start;        /* JOBIO_SAMPLE_MAX_PER_SEC window: start and timed calls in it */
  uint64_t win_sampled;
  uint64_t dev_cache;        /* last st_dev looked up, its slot, and the mount generation */
  int32_t dev_cache_slot;
  uint32_t dev_cache_gen;
  uint64_t vfork_ret; /* the vfork wrapper keeps its return address here (not on the shared stack) */
};
#define JOBIO_TLS_VFORK_RET 88 /* offsetof(struct jobio_tls, vfork_ret), used by the vfork wrapper (asm) */
#define JOBIO_BUSY_VFORK 0x10000u
#define JOBIO_BUSY_NOBLOCK 0x20000u /* set in the TLS image: every new thread starts with it */
static inline void jobio_set_block(struct jobio_tls *t, struct jobio_block *b) {
  t->block = b;
  if (b)
    t->busy &= ~JOBIO_BUSY_NOBLOCK;
  else
    t->busy |= JOBIO_BUSY_NOBLOCK;
}
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
#define JOBIO_FDF_PROV 0x4  /* mount taken from the path at open: confirmed by the device at the
                               program's own fstat, or with one fstat before its first transfer */
struct jobio_fd {
  uint32_t ofd; /* index of the open-file record (0: none, e.g. inherited) */
  uint16_t slot;
  uint8_t kind;
  uint8_t flags;
  uint32_t moff; /* kind FILE: byte offset of the slot's counters in a thread block, else 0 */
  uint32_t xoff; /* moff once the open is decided (JOBIO_FDF_SAT): transfers counted inline; else 0 */
  int64_t pos;   /* tracked file offset for seek classification; negative: unknown */
};
/* An unknown offset. Transfers add to the offset without looking (one add on the hot path): an
 * unknown one stays negative for the first 2^62 bytes moved. */
#define JOBIO_POS_UNKNOWN (INT64_MIN / 2)
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
  uint8_t unseen; /* bytes may have moved through a path the profiler does not see (mmap, async I/O) */
  uint8_t pad[3];
  uint64_t bytes;
  uint64_t time_est;
  uint64_t path_hash; /* of the path it was opened by (0: none): open while the record lives */
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
  uint64_t next_tick_ns; /* when a timed call must call jobio_tick: next_flush_ns, or 0 with a sampling cap */
  char exe[64];
  char jobid[64];
  char jobid_source[16];
  char bypass_name[64];
  int from_constructor; /* 1 when the constructor (not a wrapper) initialised */
  /* I/O seen but not counted (struct jobio_process_ext); atomics, reset in a fork child */
  uint64_t io_uring_setups;
  uint64_t posix_aio_calls;
  uint64_t libaio_iocbs;
  uint64_t mmap_bytes;
  char exec_target[64];
  int exiting_normally; /* the destructor runs: stdio streams will be flushed after it */
  uint64_t spawned_total; /* children started by vfork/posix_spawn (struct jobio_process_ext) */
  struct jobio_spawned spawned[JOBIO_SPAWN_RING];
  char vfork_target[28]; /* written by a vfork child's exec wrapper (it shares our memory) */
};
void jobio_note_spawned(pid_t pid, const char *path);
extern struct jobio_state jobio_g;

/* ---- functions (defined in the .c files) ---- */
void jobio_init(int from_constructor);
int jobio_begin_slow(void);
uint64_t jobio_now_mono(void);
uint64_t jobio_now_coarse(void);
void jobio_tick(uint64_t now, int timed);
int64_t jobio_tick_ret(uint64_t now, int64_t r); /* jobio_tick(now, 1), then r (for tail calls) */
void jobio_sample_window(struct jobio_tls *t, uint64_t now);
void jobio_log(const char *msg, long num);
void jobio_debug(const char *msg, const char *arg);
void jobio_guard_enter(void);
void jobio_guard_leave(void);
struct jobio_block *jobio_block_claim(void);
struct jobio_block *jobio_blocks_head(void);
void jobio_blocks_reset_child(struct jobio_block *keep);
uint64_t jobio_threads_time(uint64_t now);
/* The time estimate and its bound (timebound.c), applied by the flush under its lock. */
void jobio_timebound_update(uint64_t sent_slots, uint64_t thread_time);
void jobio_timebound_fill(int slot, struct jobio_mstats *m);
void jobio_timebound_reset(void);

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
void jobio_ofd_mark_unseen(int fd);
void jobio_ofd_set_path(uint32_t ofd, uint64_t hash);
void jobio_fd_confirm(int fd, int have_st, uint64_t dev, mode_t mode);
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

extern uint32_t jobio_mount_gen;

/* pending stats */
int jobio_stat_ok_fast(struct jobio_tls *t, const char *path, uint64_t dev, uint64_t est, int sampled);
void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled);
void jobio_stat_opened(struct jobio_block *b, uint64_t hash);
void jobio_path_open_add(uint64_t hash, int delta);
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
void jobio_flush_hello(void);

/* stdio: the flush of every stream that exit() does after our destructor */
void jobio_stdio_exit(struct jobio_block *b);

/* process */
char *const *jobio_child_env(char *const envp[], char **scratch, size_t scratch_len);

/* ---- the hot path ---- */

/* A wrapper's context: whether its duration is measured, and when it started. */
struct jobio_ctx {
  struct jobio_tls *t;
  uint64_t t0; /* 0: not sampled */
  uint64_t w;  /* its weight 1/p when sampled */
};

JOBIO_HOT uint64_t jobio_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
uint64_t jobio_next_gap(struct jobio_tls *t);

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

/* Slot of a descriptor for a non-transfer call: >= 0 slot, -1 ignored, -2 invisible. */
int jobio_fd_slot(int fd);

_Static_assert((int)JOBIO_DIR_READ == (int)JOBIO_CALL_READ && (int)JOBIO_DIR_WRITE == (int)JOBIO_CALL_WRITE, "dir = call");

/* ---- network peers (net_peers.c, mounts.c): socket I/O per peer address with JOBIO_NETWORK=1 ---- */
#define JOBIO_NET_PEERS 16 /* peer addresses with a stats slot of their own, per process; later ones fold */
int jobio_peer_slot(uint64_t key, void (*name)(const void *arg, char *buf, size_t cap), const void *arg);
int jobio_net_addr_slot(const struct sockaddr *a, socklen_t len);
int jobio_net_fd_slot(int fd);
uint64_t jobio_net_folded(void);
void jobio_net_after_fork(void);
void jobio_count_net(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t est);

#pragma GCC visibility pop

#endif /* JOBIO_H */
