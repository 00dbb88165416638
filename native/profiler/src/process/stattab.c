/*
 * Pending successful stats (docs/profiler.md "Classification": a stat/access is yellow if the process opens the path
 * later, red if it never does, decided at exit). A fixed table of recent stat'ed path hashes, lock
 * free (atomics only, so a signal handler may use it): each entry counts the stats waiting for an
 * open of that path. An open moves them to yellow; exit (or exec) turns what is left red; an entry
 * evicted to make room is decided red at once (the path was not opened "soon").
 * Paths are hashed as written (with the directory descriptor for *at calls): "x" and "./x" differ.
 */
#include <errno.h>
#include <string.h>

#include "process/stattab.h"

#include "base/pathwalk.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/mounts.h"
#include "process/thread.h"

struct jobio_stat_ent *jobio_stat_tab;

/* Paths open right now (by hash, with the number of opens of it still open): a stat of one of them
 * is "used" at once (yellow). Same size and probing as the pending table; when its neighbourhood is
 * full an open is not entered (its stats then wait for a later open, as before). */
struct jobio_open_ent *jobio_open_tab;

uint64_t jobio_path_hash(int dirfd, const char *path) { return jobio_pw_at(jobio_pw_hash(path), dirfd, path); }

void jobio_stats_reset(void) {
  if (!jobio_open_tab) jobio_open_tab = jobio_sys_mmap(sizeof(struct jobio_open_ent) * JOBIO_STAT_TABLE);
  if (!jobio_stat_tab) {
    /* only with the open-path table: a stat that finds the pending table looks there unchecked */
    if (jobio_open_tab) jobio_stat_tab = jobio_sys_mmap(sizeof(struct jobio_stat_ent) * JOBIO_STAT_TABLE);
    return;
  }
  jobio_sys_zero(jobio_stat_tab, sizeof(struct jobio_stat_ent) * JOBIO_STAT_TABLE);
  /* (a fork child keeps the open-path table: it inherited those descriptors) */
}

uint32_t jobio_path_opened_probe(uint64_t hash) {
  if (!jobio_open_tab) return 0;
  uint32_t base = JOBIO_STAT_INDEX(hash);
  for (uint32_t i = 0; i < JOBIO_STAT_PROBE; i++) {
    uint32_t k = (base + i) & (JOBIO_STAT_TABLE - 1);
    struct jobio_open_ent *c = &jobio_open_tab[k];
    uint64_t h = __atomic_load_n(&c->hash, __ATOMIC_ACQUIRE);
    if (h == 0) {
      uint64_t zero = 0;
      if (__atomic_compare_exchange_n(&c->hash, &zero, hash, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) h = hash;
      else h = zero;
    }
    if (h == hash) {
      __atomic_add_fetch(&c->opens, 1, __ATOMIC_RELAXED);
      return k + 1;
    }
  }
  return 0;
}

/* (only with the pending table: then this one exists too, jobio_stats_reset) */
static inline __attribute__((always_inline)) int jobio_path_is_open(uint64_t hash) {
  uint32_t base = JOBIO_STAT_INDEX(hash);
  for (uint32_t i = 0; i < JOBIO_STAT_PROBE; i++) {
    struct jobio_open_ent *c = &jobio_open_tab[(base + i) & (JOBIO_STAT_TABLE - 1)];
    uint64_t h = __atomic_load_n(&c->hash, __ATOMIC_ACQUIRE);
    if (h == hash) return __atomic_load_n(&c->opens, __ATOMIC_RELAXED) > 0;
    if (h == 0) return 0;
  }
  return 0;
}

/* Take the waiting stats out of an entry and count them with class cls. */
static void jobio_stat_drain(struct jobio_block *b, struct jobio_stat_ent *e, int cls) {
  uint32_t n = __atomic_exchange_n(&e->pending, 0, __ATOMIC_ACQ_REL);
  if (!n) return;
  uint32_t ns = __atomic_exchange_n(&e->psampled, 0, __ATOMIC_ACQ_REL);
  uint64_t tm = __atomic_exchange_n(&e->time_est, 0, __ATOMIC_ACQ_REL);
  int slot = (int)(__atomic_load_n(&e->hash, __ATOMIC_ACQUIRE) & 0xff); /* where they were made */
  if (!b || slot < 0 || slot >= JOBIO_MAX_SLOTS) return;
  struct jobio_mstats *m = jobio_ms(b, (unsigned)slot);
  m->call[JOBIO_CALL_ACCESS].calls[cls] += n;
  m->call[JOBIO_CALL_ACCESS].time_ns[cls] += tm;
  m->call[JOBIO_CALL_ACCESS].sampled += ns;
  if (cls == JOBIO_RED) jobio_reason(m, JOBIO_REASON_STAT_UNUSED, n, tm, 1);
}

/* A stat of a file the process has open: used (yellow) at once. */
static inline void jobio_stat_used(struct jobio_block *b, int slot, uint64_t est, int sampled) {
  jobio_count_reason(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS, JOBIO_YELLOW, -1, est, sampled);
}

/* A successful stat of a path not open now: it waits for an open (jobio_stat_pending), in the entry
 * of its key (hash: JOBIO_STAT_KEY of the path and the slot). */
static void jobio_stat_wait(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled) {
  if (!jobio_stat_tab) {
    jobio_count_reason(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS, JOBIO_RED, JOBIO_REASON_STAT_UNUSED, est, sampled);
    return;
  }
  uint32_t base = JOBIO_STAT_INDEX(hash);
  struct jobio_stat_ent *e = NULL;
  for (uint32_t i = 0; i < JOBIO_STAT_PROBE; i++) {
    struct jobio_stat_ent *c = &jobio_stat_tab[(base + i) & (JOBIO_STAT_TABLE - 1)];
    uint64_t h = __atomic_load_n(&c->hash, __ATOMIC_ACQUIRE);
    if (h == hash) {
      e = c;
      break;
    }
    if (h == 0) {
      uint64_t zero = 0;
      if (__atomic_compare_exchange_n(&c->hash, &zero, hash, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || zero == hash) {
        e = c;
        break;
      }
    }
  }
  if (!e) {
    /* full neighbourhood: evict the first entry (its stats are decided red now) */
    e = &jobio_stat_tab[base];
    jobio_stat_drain(b, e, JOBIO_RED);
    __atomic_store_n(&e->hash, hash, __ATOMIC_RELEASE);
  }
  jobio_count_made(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS); /* made now, its class waits */
  if (sampled) {
    /* its class waits, its duration and estimated time do not: the interval's longest stat is this
     * one's now, and its time is in the frame it was made in */
    jobio_max_store(&jobio_ms(b, (unsigned)slot)->max.call_ns[JOBIO_CALL_ACCESS], jobio_t.last_dt);
    jobio_count_made_time(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS, est);
    __atomic_add_fetch(&e->time_est, est, __ATOMIC_RELAXED);
    __atomic_add_fetch(&e->psampled, 1, __ATOMIC_RELAXED);
  }
  __atomic_add_fetch(&e->pending, 1, __ATOMIC_RELEASE);
}

/* A successful stat's verdict or its wait: used at once when the path is open, else one more pending
 * stat of its entry (inline when the entry sits at its first place, the common repeat). */
static inline __attribute__((always_inline)) void jobio_stat_count(struct jobio_block *b, int slot, uint64_t h, uint64_t est,
                                                                   int sampled) {
  if (jobio_path_is_open(h)) {
    jobio_stat_used(b, slot, est, sampled);
    return;
  }
  uint64_t key = JOBIO_STAT_KEY(h, slot);
  struct jobio_stat_ent *e = &jobio_stat_tab[JOBIO_STAT_INDEX(h)];
  if (JOBIO_LIKELY(__atomic_load_n(&e->hash, __ATOMIC_ACQUIRE) == key) && !sampled) {
    jobio_count_made(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS);
    __atomic_add_fetch(&e->pending, 1, __ATOMIC_RELEASE);
    return;
  }
  jobio_stat_wait(b, slot, key, est, sampled);
}

void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled) {
  if (!jobio_stat_tab) {
    jobio_stat_wait(b, slot, JOBIO_STAT_KEY(hash, slot), est, sampled);
    return;
  }
  jobio_stat_count(b, slot, hash, est, sampled);
}

/* every entry of the path (one per slot its stats were made in) */
void jobio_stat_opened_probe(struct jobio_block *b, uint64_t hash) {
  if (!jobio_stat_tab) return;
  uint32_t base = JOBIO_STAT_INDEX(hash);
  uint64_t path = JOBIO_STAT_PATH(hash);
  for (uint32_t i = 0; i < JOBIO_STAT_PROBE; i++) {
    struct jobio_stat_ent *c = &jobio_stat_tab[(base + i) & (JOBIO_STAT_TABLE - 1)];
    uint64_t h = __atomic_load_n(&c->hash, __ATOMIC_ACQUIRE);
    if (h == 0) return;
    if (JOBIO_STAT_PATH(h) == path) jobio_stat_drain(b, c, JOBIO_YELLOW);
  }
}

void jobio_stats_finalize(struct jobio_block *b) {
  if (!jobio_stat_tab) return;
  for (uint32_t i = 0; i < JOBIO_STAT_TABLE; i++) {
    struct jobio_stat_ent *c = &jobio_stat_tab[i];
    if (__atomic_load_n(&c->pending, __ATOMIC_ACQUIRE)) jobio_stat_drain(b, c, JOBIO_RED);
  }
}

/*
 * The common successful stat: the device is the one this thread looked up last (same mount table
 * generation), so the slot is known without the mount table; the path only needs its hash. Returns
 * 0 (nothing counted) when the general path must decide. No system call, no lock.
 */
static inline __attribute__((always_inline)) int jobio_stat_ok(struct jobio_tls *t, const char *path, uint64_t dev, uint64_t est,
                                                               int sampled) {
  int slot = t->dev_cache_slot;
  if (t->dev_cache != dev || t->dev_cache_gen != __atomic_load_n(&jobio_mount_gen, __ATOMIC_ACQUIRE) || slot < 0 ||
      !jobio_stat_tab || !path)
    return 0;
  slot = jobio_component_unnamed(slot, path);
  jobio_stat_count(t->block, slot, jobio_pw_hash(path), est, sampled);
  return 1;
}
int jobio_stat_ok_fast(struct jobio_tls *t, const char *path, uint64_t dev, uint64_t est, int sampled) {
  return jobio_stat_ok(t, path, dev, est, sampled);
}
/* (the untimed call, most of them: no duration to carry) */
int jobio_stat_ok_untimed(struct jobio_tls *t, const char *path, uint64_t dev) { return jobio_stat_ok(t, path, dev, 0, 0); }

/*
 * The common successful access: a path absolute or relative to the working directory (others go
 * the general way, 0) has no device in its answer, so its mount comes from the walk of the path that also gives
 * its hash, answered by the thread's last directory when it is the same. Returns 0 (nothing counted)
 * when the general path must decide. No system call when the last directory answers.
 */
static inline __attribute__((always_inline)) int jobio_access_ok(struct jobio_tls *t, int dirfd, const char *path, uint64_t est,
                                                                 int sampled) {
  if (!jobio_stat_tab || !path || !path[0] || (path[0] != '/' && dirfd != AT_FDCWD)) return 0;
  struct jobio_pathwalk pw;
  jobio_pw_walk(path, &pw);
  struct jobio_dir_cache *c = jobio_dir_cached(path, &pw);
  int slot;
  if (JOBIO_LIKELY(c != NULL))
    slot = jobio_component_walked_copy(c->slot, path, &pw, 0);
  else {
    /* the mount lookup may make system calls of the library's own: not counted, errno kept */
    int saved = errno;
    t->busy++;
    struct jobio_pathwalk w = pw; /* (a copy: see jobio_component_walked_as) */
    slot = jobio_slot_walked_slow(path, &w, 0);
    t->busy--;
    errno = saved;
  }
  if (slot < 0) {
    t->block->ignored++;
    return 1;
  }
  jobio_stat_count(t->block, slot, pw.hash, est, sampled);
  return 1;
}
int jobio_access_ok_fast(struct jobio_tls *t, int dirfd, const char *path, uint64_t est, int sampled) {
  return jobio_access_ok(t, dirfd, path, est, sampled);
}
int jobio_access_ok_untimed(struct jobio_tls *t, int dirfd, const char *path) { return jobio_access_ok(t, dirfd, path, 0, 0); }
