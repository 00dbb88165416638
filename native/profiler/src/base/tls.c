/* The per-thread record and the guard (see tls.h). */
#include "base/tls.h"

__thread struct jobio_tls jobio_t __attribute__((tls_model("initial-exec"))) = {.busy = JOBIO_BUSY_NOBLOCK};
_Static_assert(offsetof(struct jobio_tls, busy) == 8, "the vfork wrapper (asm) sets busy at offset 8");
_Static_assert(offsetof(struct jobio_tls, vfork_ret) == JOBIO_TLS_VFORK_RET,
               "the vfork wrapper (asm) keeps its return address there");

void jobio_guard_enter(void) { jobio_t.busy++; }
void jobio_guard_leave(void) { jobio_t.busy--; }
