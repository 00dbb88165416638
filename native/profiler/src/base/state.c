/* The process-wide configuration and state (see state.h), with the configuration's defaults. */
#include "base/state.h"

#include "base/pathwalk.h"

struct jobio_config jobio_cfg = {
    .small = JOBIO_DEFAULT_SMALL_THRESHOLD,
    .large = JOBIO_DEFAULT_LARGE_THRESHOLD,
    .sample_every = JOBIO_DEFAULT_SAMPLE_EVERY,
    .timeframe_ns = 10000000000ull,
};
struct jobio_state jobio_g;

uint64_t jobio_component_bits = JOBIO_PW_SQLITE_BITS;

/* The word follows the gate: whoever changes the gate stores the word for the value it reads, and
 * again while the gate changed meanwhile, so the last store is for the gate's last value. */
static void jobio_component_bits_follow(void) {
  for (;;) {
    uint32_t gate = __atomic_load_n(&jobio_g.component_gate, __ATOMIC_SEQ_CST);
    __atomic_store_n(&jobio_component_bits, gate ? ~0ull : JOBIO_PW_SQLITE_BITS, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&jobio_g.component_gate, __ATOMIC_SEQ_CST) == gate) return;
  }
}
void jobio_component_gate_add(int32_t delta) {
  __atomic_add_fetch(&jobio_g.component_gate, (uint32_t)delta, __ATOMIC_SEQ_CST);
  jobio_component_bits_follow();
}
void jobio_component_gate_set(uint32_t value) {
  __atomic_store_n(&jobio_g.component_gate, value, __ATOMIC_SEQ_CST);
  jobio_component_bits_follow();
}
