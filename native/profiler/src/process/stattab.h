/* Pending stats (stattab.c): a successful stat is yellow if its path is opened later, red if never. */
#ifndef JOBIO_STATTAB_H
#define JOBIO_STATTAB_H
#include "process/thread.h"

#pragma GCC visibility push(hidden)

int jobio_stat_ok_fast(struct jobio_tls *t, const char *path, uint64_t dev, uint64_t est, int sampled);
void jobio_stat_pending(struct jobio_block *b, int slot, uint64_t hash, uint64_t est, int sampled);
void jobio_stat_opened(struct jobio_block *b, uint64_t hash);
/* An open of the path with this hash: its entry in the table of paths open now, its count raised
 * (0: not entered, the neighbourhood is full); the open's record keeps it for jobio_path_closed. */
uint32_t jobio_path_opened(uint64_t hash);
void jobio_path_closed(uint32_t ent);
void jobio_stats_finalize(struct jobio_block *b);
void jobio_stats_reset(void);
uint64_t jobio_path_hash(int dirfd, const char *path);

#pragma GCC visibility pop
#endif /* JOBIO_STATTAB_H */
