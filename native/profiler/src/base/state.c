/* The process-wide configuration and state (see state.h), with the configuration's defaults. */
#include "base/state.h"

struct jobio_config jobio_cfg = {
    .small = JOBIO_DEFAULT_SMALL_THRESHOLD,
    .large = JOBIO_DEFAULT_LARGE_THRESHOLD,
    .sample_every = JOBIO_DEFAULT_SAMPLE_EVERY,
    .timeframe_ns = 10000000000ull,
};
struct jobio_state jobio_g;
