/*
 * How a wrapper enters the library (the gate): is this call counted? The common case is inline here;
 * the rest (a thread's first counted call, the lazy initialisation, re-entry, a vfork child, an
 * untraced process) is jobio_begin_slow (entry.c). And the shapes the wrappers share.
 */
#ifndef JOBIO_ENTRY_H
#define JOBIO_ENTRY_H
#include "account/count.h"
#include "account/sampling.h"
#include "base/common.h"
#include "base/real.h"
#include "base/tls.h"

#pragma GCC visibility push(hidden)

/* The slow half of jobio_enter: first call of a thread, lazy initialisation, re-entry, vfork child,
 * untraced process. 1: count this call. */
int jobio_begin_slow(void);
/* The initialisation, once per process: from the constructor, or lazily from the first wrapper that
 * runs (a wrapper may run before the constructor). */
void jobio_init(int from_constructor);

/*
 * Is this call counted? The common case is one TLS load and two tests; the rest (first call of a
 * thread, lazy initialisation, re-entry, vfork child, untraced process) is jobio_begin_slow.
 */
JOBIO_HOT int jobio_enter(struct jobio_tls *t) {
  if (JOBIO_LIKELY(t->busy == 0)) return 1; /* (busy has JOBIO_BUSY_NOBLOCK while block is NULL) */
  return jobio_begin_slow();
}

/* Should this call be counted? (false: forward only.) Does not take the time. */
JOBIO_HOT int jobio_begin_notime(struct jobio_ctx *c) {
  struct jobio_tls *t = &jobio_t;
  c->t = t;
  c->t0 = 0;
  return jobio_enter(t);
}

JOBIO_HOT int jobio_begin(struct jobio_ctx *c) {
  if (!jobio_begin_notime(c)) return 0;
  jobio_start(c);
  return 1;
}

/*
 * The shape of the hottest wrappers (read/write family, lseek, stat): the ready test and the
 * countdown inline, then the untimed count inline with a small register footprint; the timed call
 * (jobio_timed_NAME) and everything else (jobio_slow_NAME: first call of a thread, re-entry,
 * vfork child, not traced) are separate functions, so the common path saves few registers.
 */
/* The fast test without the countdown, also requiring the real function to be resolved already
 * (so the fast half never calls the resolver). */
#define JOBIO_READY(t, fn, sym)                                                                      \
  (JOBIO_LIKELY((t)->busy == 0) &&                                                                   \
   JOBIO_LIKELY(((fn) = (__typeof__(fn))__atomic_load_n(&jobio_real[JOBIO_SYM_##sym], __ATOMIC_RELAXED)) != NULL))
/* In the slow half (the ready test failed): 0 forward uncounted, 1 counted untimed, 2 timed. */
JOBIO_HOT int jobio_slow_enter(struct jobio_tls *t) {
  if (!jobio_begin_slow()) return 0;
  return jobio_timed_now(t) ? 2 : 1;
}

/*
 * Values that must survive a call (the clock reads, the real function) wait in the stack frame:
 * JOBIO_SPILL("+m"(a), ...) before and after the call makes the compiler store them once and
 * load them once where they are used, instead of keeping them in callee-saved registers (each
 * of which costs a push, a pop and two moves). An empty asm: no instruction of its own.
 */
#define JOBIO_SPILL(...) __asm__ volatile("" : __VA_ARGS__)
/* The same before a call whose arguments are these values: stored once, not read back for the
 * call (inputs: the registers still hold them). */
#define JOBIO_SPILL_IN(...) __asm__ volatile("" : : __VA_ARGS__)
#define JOBIO_MEM_IN(...) JOBIO_MEM_N(__VA_ARGS__, JOBIO_MEM_IN5, JOBIO_MEM_IN4, JOBIO_MEM_IN3, JOBIO_MEM_IN2, JOBIO_MEM_IN1, )(__VA_ARGS__)
#define JOBIO_MEM_IN1(a) "m"(a)
#define JOBIO_MEM_IN2(a, b) "m"(a), "m"(b)
#define JOBIO_MEM_IN3(a, b, c) "m"(a), "m"(b), "m"(c)
#define JOBIO_MEM_IN4(a, b, c, d) "m"(a), "m"(b), "m"(c), "m"(d)
#define JOBIO_MEM_IN5(a, b, c, d, e) "m"(a), "m"(b), "m"(c), "m"(d), "m"(e)
/* "+m" operands for a parenthesised argument list: JOBIO_MEM (fd, buf, n) */
#define JOBIO_MEM(...) JOBIO_MEM_N(__VA_ARGS__, JOBIO_MEM5, JOBIO_MEM4, JOBIO_MEM3, JOBIO_MEM2, JOBIO_MEM1, )(__VA_ARGS__)
#define JOBIO_MEM_N(_1, _2, _3, _4, _5, m, ...) m
#define JOBIO_MEM1(a) "+m"(a)
#define JOBIO_MEM2(a, b) "+m"(a), "+m"(b)
#define JOBIO_MEM3(a, b, c) "+m"(a), "+m"(b), "+m"(c)
#define JOBIO_MEM4(a, b, c, d) "+m"(a), "+m"(b), "+m"(c), "+m"(d)
#define JOBIO_MEM5(a, b, c, d, e) "+m"(a), "+m"(b), "+m"(c), "+m"(d), "+m"(e)


/* The body of a wrapper whose call is recorded after it returns: with `state` declared, forward at
 * once (a tail call) unless `begin` says this call is counted; else make the call, then run the
 * statements given after call_expr, which record what it did (they see its result r). */
#define JOBIO_WRAP_BODY(state, begin, type, call_expr, ...) \
  state;                                                    \
  if (!(begin)) return call_expr;                           \
  type r = call_expr;                                       \
  __VA_ARGS__;                                              \
  return r;
/* The same with a context c from jobio_begin (timed) or jobio_begin_notime. */
#define JOBIO_CTX_CALL(begin, type, call_expr, ...) \
  JOBIO_WRAP_BODY(struct jobio_ctx c, begin(&c), type, call_expr, __VA_ARGS__)

/* the mode argument of open-like calls is only there with O_CREAT or O_TMPFILE */
static inline int jobio_needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

#pragma GCC visibility pop
#endif /* JOBIO_ENTRY_H */
