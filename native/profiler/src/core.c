/*
 * Lifecycle and per-thread state: configuration from the environment, lazy initialisation (a
 * wrapper may run before our constructor), accumulation blocks, the sampling decision's slow
 * parts, fork handlers, the destructor's final flush, the error log and raw system calls.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "config.h"
#include "jobio.h"

__thread struct jobio_tls jobio_t __attribute__((tls_model("initial-exec"))) = {.busy = JOBIO_BUSY_NOBLOCK};
_Static_assert(offsetof(struct jobio_tls, busy) == 8, "the vfork wrapper (asm) sets busy at offset 8");
_Static_assert(offsetof(struct jobio_tls, vfork_ret) == JOBIO_TLS_VFORK_RET, "the vfork wrapper (asm) keeps its return address there");

struct jobio_config jobio_cfg = {
    .small = 32768,
    .large = 134217728,
    .sample_every = 16,
    .timeframe_ns = 10000000000ull,
};
struct jobio_state jobio_g;

static pthread_key_t jobio_thread_key;
static int jobio_key_ok;
static struct jobio_block *jobio_blocks;
static uint64_t jobio_period_base = 16; /* JOBIO_SAMPLE_EVERY */

/* ---------------- raw system calls ---------------- */
long jobio_sys_open(int dirfd, const char *path, int flags, int mode) {
  return syscall(SYS_openat, dirfd, path, flags, mode);
}
long jobio_sys_close(int fd) { return syscall(SYS_close, fd); }
long jobio_sys_read(int fd, void *buf, size_t n) { return syscall(SYS_read, fd, buf, n); }
long jobio_sys_write(int fd, const void *buf, size_t n) { return syscall(SYS_write, fd, buf, n); }
long jobio_sys_fstat(int fd, struct stat *st) { return syscall(SYS_fstat, fd, st); }
long jobio_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags) {
  return syscall(SYS_newfstatat, dirfd, path, st, flags);
}
long jobio_sys_lseek(int fd, long off, int whence) { return syscall(SYS_lseek, fd, off, whence); }
void *jobio_sys_mmap(size_t len) {
  long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p < 0 && p > -4096) return NULL;
  if ((void *)p == MAP_FAILED) return NULL;
  return (void *)p;
}
void jobio_sys_munmap(void *p, size_t len) { syscall(SYS_munmap, p, len); }
void jobio_sys_zero(void *p, size_t len) {
  /* Fresh zero pages over the range: no page is touched (a fork child must not copy them all). */
  if (syscall(SYS_mmap, p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
      -1)
    memset(p, 0, len);
}
long jobio_sys_fcntl(int fd, int cmd, long arg) { return syscall(SYS_fcntl, fd, cmd, arg); }
pid_t jobio_sys_getpid(void) { return (pid_t)syscall(SYS_getpid); }

uint64_t jobio_now_mono(void) { return jobio_now(); }
uint64_t jobio_now_coarse(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t jobio_now_real(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void jobio_guard_enter(void) { jobio_t.busy++; }
void jobio_guard_leave(void) { jobio_t.busy--; }

/* ---------------- error log (only $JOBIO_ERROR_LOG, never the job's stdout/stderr) ---------------- */
static int jobio_log_fd = -1;
static int jobio_log_count;
static dev_t jobio_log_dev;
static ino_t jobio_log_ino;

static size_t jobio_fmt_u64(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0, i = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) out[i++] = tmp[--n];
  return i;
}

void jobio_log_line(const char *msg, const char *arg, long num, int has_num) {
  if (!jobio_cfg.error_log[0]) return;
  if (__atomic_fetch_add(&jobio_log_count, 1, __ATOMIC_RELAXED) >= 200) return;
  int saved = errno;
  jobio_guard_enter();
  if (jobio_log_fd < 0) {
    int fd = (int)jobio_sys_open(AT_FDCWD, jobio_cfg.error_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      int hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, JOBIO_HIGH_FD + 1);
      if (hi >= 0) {
        jobio_sys_close(fd);
        fd = hi;
      }
      struct stat st;
      if (jobio_sys_fstat(fd, &st) == 0) {
        jobio_log_dev = st.st_dev;
        jobio_log_ino = st.st_ino;
      }
      jobio_own_fd(fd);
      jobio_log_fd = fd;
    }
  }
  if (jobio_log_fd >= 0) {
    struct stat st;
    if (jobio_sys_fstat(jobio_log_fd, &st) != 0 || st.st_ino != jobio_log_ino || st.st_dev != jobio_log_dev)
      jobio_log_fd = -1; /* replaced behind our back (dup2 over it): never write into it */
  }
  if (jobio_log_fd >= 0) {
    char line[512];
    size_t n = 0;
    const char *prefix = "jobio: pid ";
    for (const char *p = prefix; *p; p++) line[n++] = *p;
    n += jobio_fmt_u64(line + n, (uint64_t)jobio_sys_getpid());
    line[n++] = ':';
    line[n++] = ' ';
    for (const char *p = msg; *p && n < 400; p++) line[n++] = *p;
    if (arg) {
      line[n++] = ' ';
      for (const char *p = arg; *p && n < 490; p++) line[n++] = *p;
    }
    if (has_num) {
      line[n++] = ' ';
      if (num < 0) {
        line[n++] = '-';
        num = -num;
      }
      n += jobio_fmt_u64(line + n, (uint64_t)num);
    }
    line[n++] = '\n';
    jobio_sys_write(jobio_log_fd, line, n);
  }
  jobio_guard_leave();
  errno = saved;
}

/* The program closed or replaced one of our descriptors. */
void jobio_own_forget(int fd);
void jobio_own_forget(int fd) {
  if (fd == jobio_log_fd) jobio_log_fd = -1;
  jobio_transport_forget(fd);
}

void jobio_log(const char *msg, long num) { jobio_log_line(msg, NULL, num, 1); }
void jobio_debug(const char *msg, const char *arg) {
  if (jobio_cfg.debug) jobio_log_line(msg, arg, 0, 0);
}

/* ---------------- the transfer bin table (see struct jobio_binoff) ---------------- */
struct jobio_binoff jobio_binoff;

void jobio_binoff_init(void) {
  for (int dir = 0; dir < JOBIO_DIR_COUNT; dir++) {
    for (unsigned q = 0; q < 64; q++) {
      uint64_t lo = 1ull << q, hi = q == 63 ? UINT64_MAX : (1ull << (q + 1)) - 1; /* the bin is [lo, hi] */
      int big_lo = lo >= jobio_cfg.small, big_hi = hi >= jobio_cfg.small;
      int bin_lo = big_lo + (lo >= jobio_cfg.large), bin_hi = big_hi + (hi >= jobio_cfg.large);
      if (big_lo != big_hi || bin_lo != bin_hi) {
        jobio_binoff.sz[dir][q] = 0; /* a threshold inside the bin: compared per call */
        jobio_binoff.cls[dir][q] = 0;
        continue;
      }
      jobio_binoff.cls[dir][q] = (uint16_t)((JOBIO_W_CALLS(dir) + (size_t)big_lo * 2) * 8);
      jobio_binoff.sz[dir][q] = (uint16_t)((JOBIO_W_SIZED(dir) + (size_t)bin_lo * 3) * 8);
    }
  }
}

/* ---------------- blocks ---------------- */
struct jobio_block *jobio_blocks_head(void) { return __atomic_load_n(&jobio_blocks, __ATOMIC_ACQUIRE); }

struct jobio_block *jobio_block_claim(void) {
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    uint32_t zero = 0;
    if (!__atomic_load_n(&b->in_use, __ATOMIC_RELAXED) &&
        __atomic_compare_exchange_n(&b->in_use, &zero, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
      __atomic_store_n(&b->life_start, jobio_now(), __ATOMIC_RELEASE);
      return b;
    }
  }
  struct jobio_block *b = jobio_sys_mmap(sizeof(struct jobio_block));
  if (!b) {
    jobio_log("cannot allocate a thread block", (long)sizeof(struct jobio_block));
    return NULL;
  }
  b->in_use = 1;
  b->life_start = jobio_now();
  struct jobio_block *head = jobio_blocks_head();
  do {
    b->next = head;
  } while (!__atomic_compare_exchange_n(&jobio_blocks, &head, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
  return b;
}

void jobio_blocks_reset_child(struct jobio_block *keep) {
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    b->active = 0;
    b->ignored = 0;
    jobio_sys_zero(b->m, sizeof b->m);
    b->in_use = (b == keep);
    b->life_done = 0;
    b->life_start = b == keep ? jobio_now() : 0;
  }
}

/* A thread's lifetime ends: clear its start before adding its length, so that a flush reading
 * life_done then life_start (jobio_threads_time) never counts it twice. */
static void jobio_block_life_end(struct jobio_block *b) {
  uint64_t start = __atomic_exchange_n(&b->life_start, 0, __ATOMIC_ACQ_REL);
  if (start) __atomic_add_fetch(&b->life_done, jobio_now() - start, __ATOMIC_RELEASE);
}

/* The sum of the lifetimes of this process's threads until now (counted from each thread's first
 * counted call): the physical bound of the time the process can have spent in calls. */
uint64_t jobio_threads_time(uint64_t now) {
  uint64_t sum = 0;
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    sum += __atomic_load_n(&b->life_done, __ATOMIC_ACQUIRE);
    uint64_t start = __atomic_load_n(&b->life_start, __ATOMIC_ACQUIRE);
    if (start && start < now) sum += now - start;
  }
  return sum;
}

static void jobio_thread_end(void *p) {
  struct jobio_tls *t = &jobio_t;
  struct jobio_block *b = p;
  if (t->block == b) jobio_set_block(t, NULL);
  t->exiting = 1;
  if (b) {
    jobio_block_life_end(b);
    __atomic_store_n(&b->in_use, 0, __ATOMIC_RELEASE);
  }
}

/* Duration sampling: see jobio_next_gap_inline (jobio.h). */
uint64_t jobio_next_gap(struct jobio_tls *t) { return jobio_next_gap_inline(t); }

static void jobio_set_rate(struct jobio_tls *t, uint64_t period) { t->period = period ? period : 1; }

static void jobio_thread_setup(struct jobio_tls *t) {
  uint64_t seed = jobio_now() ^ ((uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull) ^ (uint64_t)syscall(SYS_gettid) << 32;
  t->rng = seed ? seed : 0x2545f4914f6cdd1dull;
  jobio_set_rate(t, jobio_period_base);
  t->stratum_left = 1; /* (no stratum before the first: its first call is position 0) */
  t->countdown = jobio_next_gap(t);
  t->win_start = jobio_now();
  t->win_sampled = 0;
  t->dev_cache_gen = 0;
}

int jobio_begin_slow(void) {
  struct jobio_tls *t = &jobio_t;
  if (t->busy & JOBIO_BUSY_VFORK) {
    /* vfork was called on this thread: in the child (other pid) touch nothing; in the parent
     * (it resumed after the child's exec or _exit) clear the mark. */
    if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || jobio_sys_getpid() != jobio_g.pid) return 0;
    t->busy &= ~JOBIO_BUSY_VFORK;
  }
  if ((t->busy & ~JOBIO_BUSY_NOBLOCK) || t->exiting) return 0;
  if (t->block) return 1;
  int st = __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE);
  if (st == 0) {
    jobio_init(0);
    st = __atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE);
  }
  if (st != 2 || !jobio_cfg.active) return 0;
  int saved = errno;
  t->busy++;
  struct jobio_block *b = jobio_block_claim();
  if (b) {
    jobio_thread_setup(t);
    if (jobio_key_ok) pthread_setspecific(jobio_thread_key, b);
  }
  t->busy--;
  jobio_set_block(t, b);
  errno = saved;
  return b != NULL;
}

/* ---------------- sampling cap and periodic flush ---------------- */
/* A timed call ticks when the flush is due, or every time with a sampling cap (its window). */
static void jobio_set_next_tick(void) {
  __atomic_store_n(&jobio_g.next_tick_ns, jobio_cfg.max_per_sec ? 0 : __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
}

void jobio_sample_window(struct jobio_tls *t, uint64_t now) {
  t->win_sampled++;
  if (now - t->win_start < 1000000000ull) return;
  /* calls in the window, estimated without a per-call counter: timed calls x period */
  double calls = (double)t->win_sampled * (double)t->period;
  double secs = (double)(now - t->win_start) / 1e9;
  double rate = calls / secs; /* calls per second in the last window */
  uint64_t period = jobio_period_base;
  if (rate / (double)period > (double)jobio_cfg.max_per_sec) {
    /* the next strata time one call in ceil(rate / cap); decided before their calls, so the
     * weight (the stratum length) keeps the estimate unbiased */
    double want = rate / (double)jobio_cfg.max_per_sec;
    period = want >= 4e18 ? (uint64_t)4e18 : (uint64_t)want;
    if ((double)period < want) period++;
    if (period < jobio_period_base) period = jobio_period_base;
  }
  jobio_set_rate(t, period); /* for the strata started from now on */
  t->win_start = now;
  t->win_sampled = 0;
}

void jobio_tick(uint64_t now, int timed) {
  struct jobio_tls *t = &jobio_t;
  if (jobio_cfg.max_per_sec && t->block && timed) jobio_sample_window(t, now);
  uint64_t due = __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED);
  if (now < due) return;
  if (!__atomic_compare_exchange_n(&jobio_g.next_flush_ns, &due, now + jobio_cfg.timeframe_ns, 0, __ATOMIC_RELAXED,
                                   __ATOMIC_RELAXED))
    return;
  jobio_set_next_tick();
  int saved = errno;
  t->busy++;
  jobio_flush(0);
  t->busy--;
  errno = saved;
}

int64_t jobio_tick_ret(uint64_t now, int64_t r) {
  jobio_tick(now, 1);
  return r;
}

/* ---------------- fork ---------------- */
static void jobio_atfork_parent(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  jobio_fds_after_fork(0);
}

static void jobio_reset_child(void) {
  struct jobio_tls *t = &jobio_t;
  t->busy++;
  jobio_g.pid = jobio_sys_getpid();
  jobio_g.start_rt_ns = jobio_now_real();
  jobio_g.start_mono_ns = jobio_now();
  jobio_g.next_flush_ns = jobio_g.start_mono_ns + jobio_cfg.timeframe_ns;
  jobio_g.io_uring_setups = jobio_g.posix_aio_calls = jobio_g.libaio_iocbs = jobio_g.mmap_bytes = 0;
  jobio_g.spawned_total = 0;
  jobio_set_next_tick();
  jobio_blocks_reset_child(t->block);
  jobio_fds_after_fork(1);
  jobio_stats_reset();
  jobio_transport_after_fork();
  jobio_flush_after_fork();
  jobio_mounts_after_fork();
  jobio_flush_hello(); /* the child is a process of its own: met while alive */
  t->busy--;
}

static void jobio_atfork_child(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  jobio_reset_child();
}

/* A child made without fork handlers (_Fork, clone): noticed at flush time by its pid. */
void jobio_check_pid(void);
void jobio_check_pid(void) {
  if (jobio_sys_getpid() != jobio_g.pid) jobio_reset_child();
}

/* ---------------- init ---------------- */
void jobio_init(int from_constructor) {
  int expected = 0;
  if (!__atomic_compare_exchange_n(&jobio_g.init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return;
  int saved = errno;
  jobio_t.busy++;
  jobio_resolve_all();
  jobio_read_config();
  jobio_period_base = jobio_cfg.sample_every;
  jobio_read_identity();
  jobio_decide_active();
  jobio_g.pid = jobio_sys_getpid();
  jobio_g.start_rt_ns = jobio_now_real();
  jobio_g.start_mono_ns = jobio_now();
  jobio_g.next_flush_ns = jobio_g.start_mono_ns + jobio_cfg.timeframe_ns;
  jobio_set_next_tick();
  jobio_g.from_constructor = from_constructor;
  if (jobio_cfg.active) {
    jobio_fdtab_init();
    jobio_mounts_init();
    jobio_stats_reset();
    if (pthread_key_create(&jobio_thread_key, jobio_thread_end) == 0) jobio_key_ok = 1;
    pthread_atfork(NULL, jobio_atfork_parent, jobio_atfork_child);
    if (!jobio_fds) jobio_cfg.active = 0;
  }
  jobio_debug(from_constructor ? "initialised from the constructor" : "initialised lazily from a wrapper",
              jobio_g.exe);
  __atomic_store_n(&jobio_g.init_state, 2, __ATOMIC_RELEASE);
  if (jobio_cfg.active) jobio_flush_hello(); /* met by the receiver while alive (job id verification) */
  jobio_t.busy--;
  errno = saved;
}

__attribute__((constructor)) static void jobio_constructor(void) { jobio_init(1); }

/* Normal exit (exit(), return from main): the final snapshot. */
__attribute__((destructor)) static void jobio_destructor(void) {
  if (__atomic_load_n(&jobio_g.init_state, __ATOMIC_ACQUIRE) != 2 || !jobio_cfg.active) return;
  if (jobio_t.busy & JOBIO_BUSY_VFORK) return;
  jobio_g.exiting_normally = 1; /* exit() flushes the stdio buffers after us */
  jobio_flush_final(JOBIO_FLAG_FINAL);
}
