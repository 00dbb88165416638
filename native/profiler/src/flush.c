/*
 * Snapshots and transport. A flush sums every thread block (no lock on the wrapper path; the
 * flush itself holds one mutex, taken with trylock for periodic flushes) and sends one PROCESS
 * frame and one MOUNT frame per mount with activity over a non-blocking SOCK_SEQPACKET socket.
 * Nothing waits: a missing listener, a full socket or a closed descriptor drops the frame and
 * counts it. The socket lives at a high descriptor number, is close-on-exec, and is re-validated
 * (fstat: same device and inode) before every use because programs close or dup2 over descriptors
 * they do not know about.
 */
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "jobio.h"

void jobio_check_pid(void);

static pthread_mutex_t jobio_flush_lock = PTHREAD_MUTEX_INITIALIZER;
static int jobio_sock = -1;
static dev_t jobio_sock_dev;
static ino_t jobio_sock_ino;
static uint64_t jobio_seq;
static uint64_t jobio_dropped_frames;
static struct jobio_frame_mount jobio_mframe; /* under jobio_flush_lock */

uint64_t jobio_dropped(void) { return __atomic_load_n(&jobio_dropped_frames, __ATOMIC_RELAXED); }

static uint64_t jobio_realtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The application closed our socket (or dup2'd over it): forget it, never close its descriptor. */
void jobio_transport_forget(int fd) {
  if (fd == jobio_sock) {
    jobio_sock = -1;
    jobio_debug("socket descriptor closed by the program; will reconnect", NULL);
  }
}

void jobio_transport_after_fork(void) {
  /* the inherited connection is the parent's (SO_PEERCRED names the parent): close our copy */
  if (jobio_sock >= 0) {
    jobio_sys_close(jobio_sock);
    jobio_fd_clear(jobio_sock);
    jobio_sock = -1;
  }
}

void jobio_flush_after_fork(void) {
  pthread_mutex_init(&jobio_flush_lock, NULL);
  jobio_seq = 0;
  jobio_dropped_frames = 0;
  jobio_timebound_reset();
}

static int jobio_sock_valid(void) {
  if (jobio_sock < 0) return 0;
  struct stat st;
  if (jobio_sys_fstat(jobio_sock, &st) != 0 || st.st_dev != jobio_sock_dev || st.st_ino != jobio_sock_ino ||
      !S_ISSOCK(st.st_mode)) {
    jobio_debug("socket descriptor replaced by the program; reconnecting", NULL);
    /* not ours any more: do not close it */
    if ((unsigned)jobio_sock < jobio_fd_cap && jobio_fds[jobio_sock].kind == JOBIO_FD_OWN) jobio_fd_clear(jobio_sock);
    jobio_sock = -1;
    return 0;
  }
  return 1;
}

static int jobio_connect(void) {
  int fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  size_t len = strnlen(jobio_cfg.socket_path, sizeof sa.sun_path - 1);
  memcpy(sa.sun_path, jobio_cfg.socket_path, len);
  if (syscall(SYS_connect, fd, &sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1)) != 0) {
    static int warned;
    if (!warned++) jobio_log("cannot connect to JOBIO_SOCKET, frames are dropped; errno", errno);
    jobio_sys_close(fd);
    return -1;
  }
  /* move out of the way of programs that use low descriptor numbers */
  int hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, JOBIO_HIGH_FD);
  if (hi < 0) hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, 64);
  if (hi >= 0) {
    jobio_sys_close(fd);
    fd = hi;
  }
  struct stat st;
  if (jobio_sys_fstat(fd, &st) != 0) {
    jobio_sys_close(fd);
    return -1;
  }
  jobio_sock_dev = st.st_dev;
  jobio_sock_ino = st.st_ino;
  jobio_own_fd(fd);
  jobio_sock = fd;
  return 0;
}

static void jobio_send(const void *frame, size_t len) {
  jobio_seq++;
  if (jobio_sock >= 0) {
    long r = syscall(SYS_sendto, jobio_sock, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
    if (r == (long)len) return;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
      /* peer gone (EPIPE, ECONNRESET, ENOTCONN) or descriptor lost: reconnect next time */
      if (jobio_sock_valid()) {
        jobio_sys_close(jobio_sock);
        jobio_fd_clear(jobio_sock);
      }
      jobio_sock = -1;
    }
  }
  __atomic_add_fetch(&jobio_dropped_frames, 1, __ATOMIC_RELAXED);
}

static void jobio_header(struct jobio_frame_header *h, uint16_t kind, uint32_t length, uint32_t flags,
                         uint64_t now_rt) {
  h->magic = JOBIO_WIRE_MAGIC;
  h->version = JOBIO_WIRE_VERSION;
  h->kind = kind;
  h->length = length;
  h->flags = flags;
  h->sequence = jobio_seq;
  h->pid = jobio_g.pid;
  h->reserved = 0;
  h->start_ns = jobio_g.start_rt_ns;
  h->now_ns = now_rt;
}

static void jobio_strz(char *dst, size_t cap, const char *src) {
  size_t i = 0;
  for (; src && src[i] && i + 1 < cap; i++) dst[i] = src[i];
  memset(dst + i, 0, cap - i);
}

/* The PROCESS frame of a snapshot with `mounts` MOUNT frames to follow. */
static void jobio_process_frame(struct jobio_frame_process *pf, uint32_t flags, uint64_t now_rt, uint64_t ignored,
                                uint32_t mounts) {
  memset(pf, 0, sizeof *pf);
  jobio_header(&pf->header, JOBIO_FRAME_PROCESS, sizeof *pf, flags, now_rt);
  jobio_strz(pf->jobid, sizeof pf->jobid, jobio_g.jobid);
  jobio_strz(pf->jobid_source, sizeof pf->jobid_source, jobio_g.jobid_source);
  jobio_strz(pf->exe, sizeof pf->exe, jobio_g.exe);
  pf->runtime_ns = jobio_now() - jobio_g.start_mono_ns;
  pf->dropped_frames = jobio_dropped();
  pf->ignored_calls = ignored;
  pf->mount_count = mounts;
  pf->small_threshold = (uint32_t)(jobio_cfg.small > 0xffffffffu ? 0xffffffffu : jobio_cfg.small);
  pf->large_threshold = jobio_cfg.large;
  pf->sample_every = jobio_cfg.sample_every;
  pf->network_folded = (uint32_t)(jobio_net_folded() > 0xffffffffu ? 0xffffffffu : jobio_net_folded());
  pf->ext.io_uring_setups = __atomic_load_n(&jobio_g.io_uring_setups, __ATOMIC_RELAXED);
  pf->ext.posix_aio_calls = __atomic_load_n(&jobio_g.posix_aio_calls, __ATOMIC_RELAXED);
  pf->ext.libaio_iocbs = __atomic_load_n(&jobio_g.libaio_iocbs, __ATOMIC_RELAXED);
  pf->ext.mmap_bytes = __atomic_load_n(&jobio_g.mmap_bytes, __ATOMIC_RELAXED);
  if (flags & JOBIO_FLAG_EXEC) jobio_strz(pf->ext.exec_target, sizeof pf->ext.exec_target, jobio_g.exec_target);
  pf->ext.spawned_total = __atomic_load_n(&jobio_g.spawned_total, __ATOMIC_ACQUIRE);
  memcpy(pf->ext.spawned, jobio_g.spawned, sizeof pf->ext.spawned);
}

/*
 * Start-up (and a fork child's start): one PROCESS frame without mounts, so the receiver meets the
 * process while it is alive and can verify its claimed job id in /proc/<pid> (a short-lived
 * process's first snapshot would otherwise come at exit, when /proc/<pid> may be gone). Connects
 * non-blocking; nobody listening means the frame is dropped and counted. Never waits for the lock.
 */
void jobio_flush_hello(void) {
  if (!jobio_cfg.socket_path[0]) return;
  int saved = errno;
  jobio_t.busy++;
  if (pthread_mutex_trylock(&jobio_flush_lock) == 0) {
    if (jobio_sock >= 0) jobio_sock_valid();
    if (jobio_sock < 0) jobio_connect();
    struct jobio_frame_process pf;
    jobio_process_frame(&pf, 0, jobio_realtime(), 0, 0);
    jobio_send(&pf, sizeof pf);
    pthread_mutex_unlock(&jobio_flush_lock);
  }
  jobio_t.busy--;
  errno = saved;
}

/* Caller holds the guard. Sends the cumulative snapshot (flags: 0, FINAL or EXEC). */
static void jobio_flush_locked(uint32_t flags) {
  if (!jobio_cfg.socket_path[0]) return; /* count only */
  uint64_t now_rt = jobio_realtime();
  uint64_t active = 0, ignored = 0;
  const size_t nwords = sizeof(struct jobio_mstats) / sizeof(uint64_t);
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    ignored += __atomic_load_n(&b->ignored, __ATOMIC_RELAXED);
    for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
      if (active >> s & 1) continue;
      const uint64_t *w = (const uint64_t *)(const void *)&b->m[s];
      for (size_t i = 0; i < nwords; i++)
        if (__atomic_load_n(&w[i], __ATOMIC_RELAXED)) {
          active |= 1ull << s;
          break;
        }
    }
  }
  uint32_t mounts = 0;
  uint64_t sent = 0;
  const char *mp, *mt, *ms;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++)
    if ((active >> s & 1) && jobio_slot_mount(s, &mp, &mt, &ms)) {
      mounts++;
      sent |= 1ull << s;
    }
  jobio_timebound_update(sent, jobio_threads_time(jobio_now()));

  if (jobio_sock >= 0) jobio_sock_valid();
  if (jobio_sock < 0) jobio_connect();

  struct jobio_frame_process pf;
  jobio_process_frame(&pf, flags, now_rt, ignored, mounts);
  jobio_send(&pf, sizeof pf);

  struct jobio_frame_mount *mf = &jobio_mframe;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent >> s & 1) || !jobio_slot_mount(s, &mp, &mt, &ms)) continue;
    memset(mf, 0, sizeof *mf);
    jobio_header(&mf->header, JOBIO_FRAME_MOUNT, sizeof *mf, flags, now_rt);
    jobio_strz(mf->path, sizeof mf->path, mp);
    jobio_strz(mf->fstype, sizeof mf->fstype, mt);
    jobio_strz(mf->fsname, sizeof mf->fsname, ms);
    uint64_t *dst = (uint64_t *)(void *)mf->call;
    const size_t n = sizeof(struct jobio_mstats) / sizeof(uint64_t);
    for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
      const uint64_t *src = (const uint64_t *)(const void *)&b->m[s];
      for (size_t i = 0; i < n; i++) dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    }
    jobio_timebound_fill(s, (struct jobio_mstats *)(void *)mf->call);
    jobio_send(mf, sizeof *mf);
  }
}

void jobio_flush(uint32_t flags) {
  if (!jobio_cfg.socket_path[0]) return;
  if (pthread_mutex_trylock(&jobio_flush_lock) != 0) return; /* another thread is flushing */
  jobio_check_pid();
  jobio_flush_locked(flags);
  pthread_mutex_unlock(&jobio_flush_lock);
}

/* Exit, _exit or exec: decide everything still pending, then send the last snapshot. */
void jobio_flush_final(uint32_t flags) {
  struct jobio_tls *t = &jobio_t;
  int saved = errno;
  /* Already inside the profiler on this thread: a signal handler interrupted it (e.g. exit() from
   * a handler during a periodic flush, which holds jobio_flush_lock). Waiting for the lock would
   * wait for ourselves: only send if nobody holds it. */
  int nested = (t->busy & 0xffffu) != 0;
  t->busy++;
  jobio_check_pid();
  if (!t->block && !t->exiting) {
    jobio_set_block(t, jobio_block_claim());
  }
  struct jobio_block *b = t->block;
  if (!b) {
    /* thread past its TLS destructor: borrow any block for the last counts */
    b = jobio_blocks_head();
  }
  if (jobio_g.exiting_normally && b == t->block) jobio_stdio_exit(b);
  jobio_fds_finalize(b);
  jobio_stats_finalize(b);
  if (jobio_cfg.socket_path[0] &&
      (nested ? pthread_mutex_trylock(&jobio_flush_lock) == 0 : pthread_mutex_lock(&jobio_flush_lock) == 0)) {
    jobio_flush_locked(flags);
    pthread_mutex_unlock(&jobio_flush_lock);
  }
  t->busy--;
  errno = saved;
}
