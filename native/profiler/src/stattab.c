/*
 * Pending successful stats (DESIGN 3.5: a stat/access is yellow if the process opens the path
 * later, red if it never does, decided at exit). A fixed table of recent stat'ed path hashes, lock
 * free (atomics only, so a signal handler may use it): each entry counts the stats waiting for an
 * open of that path. An open moves them to yellow; exit (or exec) turns what is left red; an entry
 * evicted to make room is decided red at once (the path was not opened "soon").
 * Paths are hashed as written (with the directory descriptor for *at calls): "x" and "./x" differ.
 */
#include <string.h>

#include "jobio.h"

struct jobio_stat_ent {
  uint64_t hash;
  uint32_t pending;
  uint32_t psampled;
  int32_t slot;
  uint32_t pad;
  uint64_t time_est;
};

static struct jobio_stat_ent *jobio_stat_tab;

uint64_t jobio_path_hash(int dirfd, const char *path) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    h ^= *p;
    h *= 0x100000001b3ull;
  }
  if (path[0] != '/' && dirfd != AT_FDCWD) h ^= ((uint64_t)(unsigned)dirfd + 1) * 0x9e3779b97f4a7c15ull;
  return h ? h : 1;
}

void jobio_stats_reset(void) {
  if (!jobio_stat_tab) {
    jobio_stat_tab = jobio_sys_mmap(sizeof(struct jobio_stat_ent) * JOBIO_STAT_TABLE);
    return;
  }
  jobio_sys_zero(jobio_stat_tab, sizeof(struct jobio_stat_ent) * JOBIO_STAT_TABLE);
}

/* Take the waiting stats out of an entry and count them with class cls. */
static void jobio_stat_drain(struct jobio_block *b, struct jobio_stat_ent *e, int cls) {
  uint32_t n = __atomic_exchange_n(&e->pending, 0, __ATOMIC_ACQ_REL);
  if (!n) return;
  uint32_t ns = __atomic_exchange_n(&e->psampled, 0, __ATOMIC_ACQ_REL);
  uint64_t tm = __atomic_exchange_n(&e->time_est, 0, __ATOMIC_ACQ_REL);
  int slot = e->slot;
  if (!b || slot < 0 || slot >= JOBIO_MAX_SLOTS) return;
  struct jobio_mstats *m = jobio_ms(b, (unsigned)slot);
  m->call[JOBIO_CALL_ACCESS].calls[cls] += n;
  m->call[JOBIO_CALL_ACCESS].time_ns[cls] += tm;
  m->call[JOBIO_CALL_ACCESS].sampled += ns;
}

void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled) {
  if (!jobio_stat_tab) {
    jobio_count(jobio_ms(b, (unsigned)slot), JOBIO_CALL_ACCESS, JOBIO_RED, est, sampled);
    return;
  }
  uint32_t base = (uint32_t)hash & (JOBIO_STAT_TABLE - 1);
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
  e->slot = slot;
  if (sampled) {
    __atomic_add_fetch(&e->time_est, est, __ATOMIC_RELAXED);
    __atomic_add_fetch(&e->psampled, 1, __ATOMIC_RELAXED);
  }
  __atomic_add_fetch(&e->pending, 1, __ATOMIC_RELEASE);
}

void jobio_stat_opened(struct jobio_block *b, uint64_t hash) {
  if (!jobio_stat_tab) return;
  uint32_t base = (uint32_t)hash & (JOBIO_STAT_TABLE - 1);
  for (uint32_t i = 0; i < JOBIO_STAT_PROBE; i++) {
    struct jobio_stat_ent *c = &jobio_stat_tab[(base + i) & (JOBIO_STAT_TABLE - 1)];
    uint64_t h = __atomic_load_n(&c->hash, __ATOMIC_ACQUIRE);
    if (h == hash) {
      jobio_stat_drain(b, c, JOBIO_YELLOW);
      return;
    }
    if (h == 0) return;
  }
}

void jobio_stats_finalize(struct jobio_block *b) {
  if (!jobio_stat_tab) return;
  for (uint32_t i = 0; i < JOBIO_STAT_TABLE; i++) {
    struct jobio_stat_ent *c = &jobio_stat_tab[i];
    if (__atomic_load_n(&c->pending, __ATOMIC_ACQUIRE)) jobio_stat_drain(b, c, JOBIO_RED);
  }
}
