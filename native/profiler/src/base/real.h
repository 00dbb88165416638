/* The declaration table (symbols.def): the next definition of every wrapped symbol (real.c). */
#ifndef JOBIO_REAL_H
#define JOBIO_REAL_H
#include "base/common.h"

/* Internal: hidden declarations let the compiler address the library's own variables directly
 * (one rip-relative operand) instead of through the GOT. */
#pragma GCC visibility push(hidden)

enum jobio_sym {
#define JOBIO_SYM(name, ret, params) JOBIO_SYM_##name,
#include "base/symbols.def"
#undef JOBIO_SYM
  JOBIO_SYM_COUNT
};
#define JOBIO_SYM(name, ret, params) typedef ret(*jobio_fn_##name) params;
#include "base/symbols.def"
#undef JOBIO_SYM

struct jobio_symbol {
  const char *name;
  void **real; /* where the resolved next definition is kept */
};
extern void *jobio_real[JOBIO_SYM_COUNT];
extern const struct jobio_symbol jobio_symbols[JOBIO_SYM_COUNT];
void *jobio_resolve_slow(int sym);
void jobio_resolve_all(void);

static inline void *jobio_resolve(int sym) {
  void *p = __atomic_load_n(&jobio_real[sym], __ATOMIC_RELAXED);
  if (JOBIO_UNLIKELY(!p)) p = jobio_resolve_slow(sym);
  return p;
}
/* The real (next) definition of a wrapped symbol, typed. */
#define REAL(name) ((jobio_fn_##name)jobio_resolve(JOBIO_SYM_##name))

#pragma GCC visibility pop
#endif /* JOBIO_REAL_H */
