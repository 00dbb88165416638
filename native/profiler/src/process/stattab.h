/* Pending stats (stattab.c): a successful stat is yellow if its path is opened later, red if never. */
#ifndef JOBIO_STATTAB_H
#define JOBIO_STATTAB_H
#include "process/thread.h"

#pragma GCC visibility push(hidden)

int jobio_stat_ok_fast(struct jobio_tls *t, const char *path, uint64_t dev, uint64_t est, int sampled);
int jobio_access_ok_fast(struct jobio_tls *t, int dirfd, const char *path, uint64_t est, int sampled);
/* The same for an untimed call (the wrappers' inline half). */
int jobio_stat_ok_untimed(struct jobio_tls *t, const char *path, uint64_t dev);
int jobio_access_ok_untimed(struct jobio_tls *t, int dirfd, const char *path);
void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled);
/* The pending stats of a path made in one slot: an entry per path hash and slot, probed from
 * JOBIO_STAT_INDEX on. The index is taken from the hash's top bits (multiplicative hashing: they
 * depend on every byte); the key is the hash with its low byte replaced by the slot: its top 56 bits
 * identify the path (base/pathwalk.h), its low byte the slot the stats were made in, and are decided
 * in (a path stat'ed by the program and by a component, in two slots, has two entries). One word, so
 * a thread that claims an entry sets both at once. */
#define JOBIO_STAT_KEY(h, slot) (((h) & ~(uint64_t)0xff) | (uint64_t)(uint32_t)(slot))
#define JOBIO_STAT_PATH(k) ((k) & ~(uint64_t)0xff)
_Static_assert(JOBIO_MAX_SLOTS <= 256, "a slot fits the key's low byte");
struct jobio_stat_ent {
  uint64_t hash; /* the key (JOBIO_STAT_KEY), 0 while free */
  uint32_t pending;
  uint32_t psampled;
  uint64_t pad;
  uint64_t time_est;
};
#define JOBIO_STAT_INDEX(h) ((uint32_t)((h) >> (64 - JOBIO_STAT_BITS)))
_Static_assert((1u << JOBIO_STAT_BITS) == JOBIO_STAT_TABLE, "table size");
extern struct jobio_stat_ent *jobio_stat_tab;

void jobio_stat_opened_probe(struct jobio_block *b, uint64_t hash);
/* A path was opened: its waiting stats are used (yellow). Inline the common answer, an empty first
 * place (no stat of this path waits: probing would stop there). */
static inline void jobio_stat_opened(struct jobio_block *b, uint64_t hash) {
  struct jobio_stat_ent *tab = jobio_stat_tab;
  if (!tab || __atomic_load_n(&tab[JOBIO_STAT_INDEX(hash)].hash, __ATOMIC_ACQUIRE) == 0) return;
  jobio_stat_opened_probe(b, hash);
}
/* An open of the path with this hash: its entry in the table of paths open now, its count raised
 * (0: not entered, the neighbourhood is full); the open's record keeps it for jobio_path_closed. */
uint32_t jobio_path_opened_probe(uint64_t hash);
struct jobio_open_ent {
  uint64_t hash;
  int64_t opens;
};
extern struct jobio_open_ent *jobio_open_tab;
/* Inline the common answer: the path's entry at its first place (a path opened again, or before). */
static inline uint32_t jobio_path_opened(uint64_t hash) {
  struct jobio_open_ent *tab = jobio_open_tab;
  uint32_t k = JOBIO_STAT_INDEX(hash);
  if (JOBIO_LIKELY(tab && __atomic_load_n(&tab[k].hash, __ATOMIC_ACQUIRE) == hash)) {
    __atomic_add_fetch(&tab[k].opens, 1, __ATOMIC_RELAXED);
    return k + 1;
  }
  return jobio_path_opened_probe(hash);
}
/* Its open was closed (entries are never taken back: the index stays the path's while the open
 * lives). ent is jobio_path_opened's answer: not 0 only when the table exists, and within it. */
static inline void jobio_path_closed(uint32_t ent) {
  if (ent) __atomic_sub_fetch(&jobio_open_tab[ent - 1].opens, 1, __ATOMIC_RELAXED);
}
void jobio_stats_finalize(struct jobio_block *b);
void jobio_stats_reset(void);
uint64_t jobio_path_hash(int dirfd, const char *path);

#pragma GCC visibility pop
#endif /* JOBIO_STATTAB_H */
