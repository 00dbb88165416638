/* The transfer bin table (binoff.h), built from the configured thresholds. */
#include "account/binoff.h"

#include "base/state.h"
#include "process/thread.h"

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
        jobio_binoff.mx[dir][q] = 0;
        continue;
      }
      jobio_binoff.cls[dir][q] = (uint16_t)((JOBIO_W_CALLS(dir) + (size_t)big_lo * 2) * 8);
      jobio_binoff.sz[dir][q] = (uint16_t)((JOBIO_W_SIZED(dir) + (size_t)bin_lo * 3) * 8);
      jobio_binoff.mx[dir][q] = (uint16_t)((JOBIO_W_MAXSIZED(dir) + (size_t)bin_lo) * 8);
    }
  }
}
