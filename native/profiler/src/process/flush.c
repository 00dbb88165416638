/*
 * Snapshots. A flush sums every thread block (no lock on the wrapper path; the flush itself holds
 * one mutex, taken with trylock for periodic flushes) and hands one PROCESS frame and one MOUNT
 * frame per mount with activity to the transport (transport.c), which never waits.
 */
#include <string.h>

#include "process/flush.h"

#include "base/config.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/mounts.h"
#include "process/net_peers.h"
#include "process/thread.h"
#include "process/timebound.h"
#include "transport/transport.h"

static pthread_mutex_t jobio_flush_lock = PTHREAD_MUTEX_INITIALIZER;
static struct jobio_frame_mount jobio_mframe; /* under jobio_flush_lock */

void jobio_flush_after_fork(void) {
  pthread_mutex_init(&jobio_flush_lock, NULL);
  jobio_timebound_reset();
}

static void jobio_header(struct jobio_frame_header *h, uint16_t kind, uint32_t length, uint32_t flags,
                         uint64_t now_rt) {
  h->magic = JOBIO_WIRE_MAGIC;
  h->version = JOBIO_WIRE_VERSION;
  h->kind = kind;
  h->length = length;
  h->flags = flags;
  h->sequence = jobio_transport_seq();
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
  /* whole or not at all: a cut path would name another file */
  const char *path = jobio_program_path();
  if (strlen(path) < sizeof pf->path.exe_path) jobio_strz(pf->path.exe_path, sizeof pf->path.exe_path, path);
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
    jobio_transport_ready();
    struct jobio_frame_process pf;
    jobio_process_frame(&pf, 0, jobio_now_real(), 0, 0);
    jobio_transport_send(&pf, sizeof pf);
    pthread_mutex_unlock(&jobio_flush_lock);
  }
  jobio_t.busy--;
  errno = saved;
}

/* The calls made of the types decided as they end, and their time: the sums of their classes (the
 * others, opens, creates and stats, were counted as they were made). */
static void jobio_made_fill(struct jobio_frame_mount *mf) {
  for (int ct = 0; ct < JOBIO_CALL_COUNT; ct++) {
    if (JOBIO_CALL_DECIDED_LATER(ct)) continue;
    uint64_t n = 0, tm = 0;
    for (int k = 0; k < JOBIO_CLASS_COUNT; k++) {
      n += mf->call[ct].calls[k];
      tm += mf->call[ct].time_ns[k];
    }
    mf->made.calls[ct] = n;
    mf->made.time_ns[ct] = tm;
    mf->made.sampled[ct] = mf->call[ct].sampled;
  }
}

/* Caller holds the guard. Sends the cumulative snapshot (flags: 0, FINAL or EXEC). */
void jobio_flush_locked(uint32_t flags) {
  if (!jobio_cfg.socket_path[0]) return; /* count only */
  uint64_t now_rt = jobio_now_real();
  /* The flush thread's snapshot is meant for the frame ending at stamp_before. Woken late (a loaded
   * machine), it still goes to that frame: what was counted after the end is only the late moment,
   * while stamping it now would move the whole frame's I/O into the next one. */
  if (jobio_t.stamp_before && now_rt >= jobio_t.stamp_before) now_rt = jobio_t.stamp_before - 1;
  uint64_t active = 0, ignored = 0;
  const size_t nwords = sizeof(struct jobio_mstats) / sizeof(uint64_t);
  for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
    ignored += __atomic_load_n(&b->ignored, __ATOMIC_RELAXED);
    for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
      if (active >> s & 1) continue;
      const uint64_t *w = (const uint64_t *)(const void *)&b->m[s];
      for (size_t i = 0; i < nwords && !(active >> s & 1); i++)
        if (__atomic_load_n(&w[i], __ATOMIC_RELAXED)) active |= 1ull << s;
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

  jobio_transport_ready();

  struct jobio_frame_process pf;
  jobio_process_frame(&pf, flags, now_rt, ignored, mounts);
  jobio_transport_send(&pf, sizeof pf);

  struct jobio_frame_mount *mf = &jobio_mframe;
  for (int s = 0; s < JOBIO_MAX_SLOTS; s++) {
    if (!(sent >> s & 1) || !jobio_slot_mount(s, &mp, &mt, &ms)) continue;
    memset(mf, 0, sizeof *mf);
    jobio_header(&mf->header, JOBIO_FRAME_MOUNT, sizeof *mf, flags, now_rt);
    mf->header.reserved = (uint32_t)jobio_slot_component(s);
    jobio_strz(mf->path, sizeof mf->path, mp);
    jobio_strz(mf->fstype, sizeof mf->fstype, mt);
    jobio_strz(mf->fsname, sizeof mf->fsname, ms);
    uint64_t *dst = (uint64_t *)(void *)mf->call;
    /* the cumulative words are summed; the maxima are taken, leaving 0 for the next interval
     * (jobio_max_store), and the largest of the threads' is the process's */
    const size_t n = sizeof(struct jobio_mstats) / sizeof(uint64_t);
    const size_t nmax = offsetof(struct jobio_mstats, max) / sizeof(uint64_t);
    const size_t nmade = offsetof(struct jobio_mstats, made) / sizeof(uint64_t);
    for (struct jobio_block *b = jobio_blocks_head(); b; b = b->next) {
      uint64_t *src = (uint64_t *)(void *)&b->m[s];
      for (size_t i = 0; i < nmax; i++) dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
      for (size_t i = nmax; i < nmade; i++) {
        uint64_t v = __atomic_load_n(&src[i], __ATOMIC_RELAXED) ? __atomic_exchange_n(&src[i], 0, __ATOMIC_RELAXED) : 0;
        if (v > dst[i]) dst[i] = v;
      }
      for (size_t i = nmade; i < n; i++) dst[i] += __atomic_load_n(&src[i], __ATOMIC_RELAXED);
    }
    /* (the bounded time: the made time of the types decided as they end is their classes') */
    jobio_timebound_fill(s, (struct jobio_mstats *)(void *)mf->call);
    jobio_made_fill(mf);
    jobio_transport_send(mf, sizeof *mf);
  }
}

int jobio_flush_trylock(void) { return pthread_mutex_trylock(&jobio_flush_lock) == 0; }
void jobio_flush_unlock(void) { pthread_mutex_unlock(&jobio_flush_lock); }

void jobio_flush_send(uint32_t flags, int wait) {
  if (!jobio_cfg.socket_path[0]) return;
  if ((wait ? pthread_mutex_lock(&jobio_flush_lock) : pthread_mutex_trylock(&jobio_flush_lock)) != 0) return;
  jobio_flush_locked(flags);
  pthread_mutex_unlock(&jobio_flush_lock);
}

/* A timed call ticks when the flush is due, or every time with a sampling cap (its window). */
void jobio_set_next_tick(void) {
  __atomic_store_n(&jobio_g.next_tick_ns, jobio_cfg.max_per_sec ? 0 : __atomic_load_n(&jobio_g.next_flush_ns, __ATOMIC_RELAXED),
                   __ATOMIC_RELAXED);
}
