/* The transfer bin table (binoff.c), built from the configured thresholds, read by the inline count. */
#ifndef JOBIO_BINOFF_H
#define JOBIO_BINOFF_H
#include "base/common.h"
#include "process/thread.h"

#pragma GCC visibility push(hidden)

/*
 * Where a transfer of n > 0 bytes is counted, by q = 63 - clz(n) (its power-of-two bin is q + 1)
 * and direction: the byte offsets in the mstats of its calls[class], of its named size bin and of that
 * bin's maximum. The
 * class and size bin follow from q alone unless a threshold lies strictly inside [2^q, 2^(q+1))
 * (a threshold that is not a power of two): then sz is 0 and the general path compares. Built once
 * from the configuration (jobio_binoff_init).
 */
struct jobio_binoff {
  uint16_t cls[JOBIO_DIR_COUNT][64];
  uint16_t sz[JOBIO_DIR_COUNT][64];
  uint16_t mx[JOBIO_DIR_COUNT][64]; /* its size bin's longest call (max.sized_ns) */
};
_Static_assert(sizeof(struct jobio_mstats) < 65536, "byte offsets fit uint16_t");
extern struct jobio_binoff jobio_binoff;
void jobio_binoff_init(void);


#pragma GCC visibility pop
#endif /* JOBIO_BINOFF_H */
