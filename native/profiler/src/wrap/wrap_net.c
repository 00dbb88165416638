/*
 * Network calls, counted only with JOBIO_NETWORK=1, per peer address (net_peers.c): connect and
 * accept as their call types, send/recv (and read/write on sockets) as read/write with sizes;
 * classified red when they fail, green otherwise (a non-blocking connect in progress succeeded).
 * The peer of a connection is found once, at connect or accept (or when the socket is first met),
 * and kept in the descriptor's slot; a datagram call with an address counts on that address's peer.
 */
#include <netinet/in.h>

#include "account/count.h"
#include "account/record.h"
#include "account/sampling.h"
#include "base/real.h"
#include "base/state.h"
#include "process/fdtab.h"
#include "process/mounts.h"
#include "process/net_peers.h"
#include "process/thread.h"
#include "wrap/entry.h"

static inline int jobio_net_on(struct jobio_ctx *c) {
  return jobio_begin(c) && jobio_cfg.network;
}

static inline void jobio_mark_net(int fd, int slot) {
  if (slot >= 0 && (unsigned)fd < jobio_fd_cap) jobio_fd_set(fd, JOBIO_FD_NET, (uint16_t)slot, 0, JOBIO_FDF_SAT, JOBIO_POS_UNKNOWN);
}

/* connect or accept on the peer's slot; errno is still the call's (its reason when red) */
static inline void jobio_rec_net(struct jobio_ctx *c, int slot, int call, int cls) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  jobio_count_slot(c, slot, call, cls, est);
  jobio_after(t1);
}

static inline int jobio_is_own(int fd) {
  return (unsigned)fd < jobio_fd_cap && jobio_fds[fd].kind == JOBIO_FD_OWN;
}

JOBIO_EXPORT int connect(int fd, const struct sockaddr *a, socklen_t len) {
  struct jobio_ctx c;
  if (!jobio_net_on(&c) || jobio_is_own(fd)) return REAL(connect)(fd, a, len);
  int r = REAL(connect)(fd, a, len);
  int saved = errno;
  int ok = r == 0 || errno == EINPROGRESS;
  int slot = jobio_net_addr_slot(a, len); /* a failed connect counts on the address it tried */
  if (ok) jobio_mark_net(fd, slot);
  errno = saved;
  jobio_rec_net(&c, slot, JOBIO_CALL_CONNECT, ok ? JOBIO_GREEN : JOBIO_RED);
  errno = saved;
  return r;
}

/* accept and accept4 after the call: the new connection's peer, asked of the kernel */
static inline void jobio_accepted(struct jobio_ctx *c, int r) {
  int saved = errno;
  int slot = r >= 0 ? jobio_net_fd_slot(r) : jobio_network_slot();
  if (r >= 0) jobio_mark_net(r, slot);
  errno = saved;
  jobio_rec_net(c, slot, JOBIO_CALL_ACCEPT, r >= 0 ? JOBIO_GREEN : JOBIO_RED);
  errno = saved;
}

JOBIO_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *len) {
  struct jobio_ctx c;
  if (!jobio_net_on(&c)) return REAL(accept)(fd, a, len);
  int r = REAL(accept)(fd, a, len);
  jobio_accepted(&c, r);
  return r;
}

JOBIO_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *len, int fl) {
  struct jobio_ctx c;
  if (!jobio_net_on(&c)) return REAL(accept4)(fd, a, len, fl);
  int r = REAL(accept4)(fd, a, len, fl);
  jobio_accepted(&c, r);
  return r;
}

/*
 * A datagram address remembered in its socket's descriptor (net_last): an IPv4 address (exact: its
 * four bytes; a peer has no port) with its peer slot, so a socket that sends to (or receives from)
 * the same host as in its last addressed call counts without looking the peer up. An address of
 * another family, or one folded into "[network]" (each fold is counted), is looked up every call.
 */
static inline int jobio_net_is_v4(const void *a, socklen_t len) {
  return len >= (socklen_t)sizeof(struct sockaddr_in) && ((const struct sockaddr *)a)->sa_family == AF_INET;
}
static inline uint32_t jobio_net_v4(const void *a) { return ((const struct sockaddr_in *)a)->sin_addr.s_addr; }
static inline void jobio_net_remember(int fd, const void *a, socklen_t len, int slot) {
  if (!jobio_net_is_v4(a, len) || slot < 0 || slot == jobio_network_slot() || (unsigned)fd >= jobio_fd_cap) return;
  struct jobio_fd *e = &jobio_fds[fd];
  if (e->kind == JOBIO_FD_UNKNOWN) jobio_fd_learn(fd); /* (once: a socket only ever given addresses) */
  if (e->kind != JOBIO_FD_NET) return;
  e->net_last.addr = jobio_net_v4(a);
  e->net_last.slot = (uint16_t)slot;
  e->net_last.mark = JOBIO_NET_LAST_MARK;
}
/* The slot a transfer is counted on inline: the descriptor's peer when the call named no address,
 * else the address's when it is the descriptor's last; -1: the general record. */
JOBIO_HOT int jobio_net_fast_slot(const struct jobio_fd *e, const void *a, socklen_t got) {
  /* (the length first: an IPv4 address's, tested once, also says that one was named) */
  if (JOBIO_LIKELY(got >= (socklen_t)sizeof(struct sockaddr_in)) && a) {
    if (((const struct sockaddr *)a)->sa_family == AF_INET && e->net_last.addr == jobio_net_v4(a) && e->net_last.mark == JOBIO_NET_LAST_MARK)
      return e->net_last.slot;
    return -1;
  }
  if (!got || !a) return e->slot;
  return -1;
}

/* The general record of a transfer after the call (t1: its end, 0 if untimed; est: a timed call's
 * estimate): on the slot of the address the call named (a sent datagram's destination, a received
 * one's source; got: its length, 0 if none), else on the descriptor's. Returns r (tail calls). */
static __attribute__((noinline)) ssize_t jobio_net_record(uint64_t t1, uint64_t est, int fd, int dir, ssize_t r, const void *a,
                                                          socklen_t got) {
  if (jobio_is_own(fd)) return r;
  if (got == 0) return jobio_rec_xfer_slow(t1, est, fd, dir, r, 0);
  struct jobio_ctx c = {&jobio_t, t1, 1}; /* only "timed or not" matters below */
  int saved = errno;
  int slot = jobio_net_addr_slot((const struct sockaddr *)a, got);
  jobio_net_remember(fd, a, got, slot);
  if (slot >= 0)
    jobio_count_net(&c, jobio_ms(c.t->block, (unsigned)slot), dir, r, est);
  else
    c.t->block->ignored++;
  errno = saved;
  jobio_after(t1);
  return r;
}

/*
 * After the call (r; t1, est: a timed call's end and estimate): inline, a transfer that moved bytes
 * on a socket whose peer slot is known (jobio_net_fast_slot; a descriptor counted as network means
 * network metering is on); the rest is jobio_net_record. Returns from the wrapper's body.
 */
#define JOBIO_NET_AFTER(timed, t1, est, dir, addr, got_after)                                                      \
  struct jobio_fd *e;                                                                                              \
  if (JOBIO_LIKELY(r > 0) && JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) &&                                          \
      JOBIO_LIKELY((e = &jobio_fds[fd])->kind == JOBIO_FD_NET)) {                                                  \
    const void *fa = (addr);                                                                                       \
    int slot = jobio_net_fast_slot(e, fa, fa ? (got_after) : 0);                                                   \
    if (JOBIO_LIKELY(slot >= 0) &&                                                                                 \
        JOBIO_LIKELY(jobio_count_net_fast((char *)jobio_ms(jobio_t.block, (unsigned)slot), dir, (uint64_t)r, timed, est, \
                                          jobio_t.last_dt))) {                                                     \
      if ((timed) && JOBIO_UNLIKELY((t1) >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED)))             \
        return jobio_tick_ret(t1, r);                                                                              \
      return r;                                                                                                    \
    }                                                                                                              \
  }                                                                                                                \
  if (!jobio_cfg.network) return r;                                                                                \
  const void *a = r >= 0 && (addr) ? (const void *)(addr) : NULL;                                                  \
  return jobio_net_record(t1, est, fd, dir, r, a, a ? (got_after) : 0);

/*
 * send/recv and the datagram calls, in the shape of the file transfers' hot path (wrap_posix.c):
 * the exported wrapper only decides (ready? timed?) and jumps to the untimed body, the timed one or
 * the slow half; both bodies count with JOBIO_NET_AFTER. A call that may name its peer: a sent
 * datagram's destination `addr`, a received one's source (filled in by the kernel: only if it fit
 * the caller's buffer, whose size `cap` is taken before the call). Only after a call that
 * succeeded, so the kernel has read (or written) the address: a failed call may have failed on an
 * unreadable one, and counts on the descriptor's peer. Nothing of the caller's is read when the
 * call is not counted (network metering off).
 */
/* The real function in the bodies below: resolved already (by the exported wrapper's ready test, or
 * by the slow half before it enters a body), so one load without the resolver's call, whose
 * possibility alone would make the bodies save their arguments. */
#define JOBIO_NET_REAL(name) ((jobio_fn_##name)__atomic_load_n(&jobio_real[JOBIO_SYM_##name], __ATOMIC_RELAXED))

#define JOBIO_NET_WRAP(name, params, args, dir, cap_expr, addr, got_after)                                         \
  static __attribute__((noinline)) ssize_t jobio_timed_##name params {                                             \
    struct jobio_tls *t = &jobio_t;                                                                                \
    struct timespec ts0, ts1;                                                                                      \
    uint64_t w = t->gap_weight;                                                                                    \
    t->countdown = jobio_next_gap_inline(t);                                                                       \
    if (!jobio_cfg.network || jobio_is_own(fd)) return JOBIO_NET_REAL(name) args;                                  \
    socklen_t cap = (cap_expr);                                                                                    \
    (void)cap;                                                                                                     \
    clock_gettime(CLOCK_MONOTONIC, &ts0);                                                                          \
    ssize_t r = JOBIO_NET_REAL(name) args;                                                                         \
    clock_gettime(CLOCK_MONOTONIC, &ts1);                                                                          \
    uint64_t t1 = jobio_ts_ns(&ts1);                                                                               \
    t->last_dt = t1 - jobio_ts_ns(&ts0);                                                                           \
    uint64_t est = jobio_scale(t->last_dt, w);                                                                     \
    JOBIO_NET_AFTER(1, t1, est, dir, addr, got_after)                                                              \
  }                                                                                                                \
  static __attribute__((noinline)) ssize_t jobio_untimed_##name params {                                           \
    socklen_t cap = jobio_cfg.network ? (cap_expr) : 0;                                                            \
    (void)cap;                                                                                                     \
    ssize_t r = JOBIO_NET_REAL(name) args;                                                                         \
    JOBIO_NET_AFTER(0, 0, 0, dir, addr, got_after)                                                                 \
  }                                                                                                                \
  static __attribute__((noinline)) ssize_t jobio_slow_##name params {                                              \
    int how = jobio_slow_enter(&jobio_t);                                                                          \
    if (!how || !jobio_resolve(JOBIO_SYM_##name)) return REAL(name) args;                                          \
    if (how == 2) return jobio_timed_##name args;                                                                  \
    return jobio_untimed_##name args;                                                                              \
  }                                                                                                                \
  JOBIO_EXPORT ssize_t name params {                                                                               \
    struct jobio_tls *t = &jobio_t;                                                                                \
    jobio_fn_##name fn;                                                                                            \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name args;                                  \
    if (jobio_timed_now(t)) return jobio_timed_##name args;                                                        \
    return jobio_untimed_##name args;                                                                              \
  }

/* a received source address is used only when the kernel's length fits what the caller gave */
#define JOBIO_FITS(lenp, cap) ((lenp) && *(lenp) <= (cap) ? *(lenp) : 0)

JOBIO_NET_WRAP(send, (int fd, const void *b, size_t n, int fl), (fd, b, n, fl), JOBIO_DIR_WRITE, 0, NULL, 0)
JOBIO_NET_WRAP(recv, (int fd, void *b, size_t n, int fl), (fd, b, n, fl), JOBIO_DIR_READ, 0, NULL, 0)
JOBIO_NET_WRAP(sendto, (int fd, const void *b, size_t n, int fl, const struct sockaddr *sa, socklen_t l),
               (fd, b, n, fl, sa, l), JOBIO_DIR_WRITE, 0, sa, l)
JOBIO_NET_WRAP(recvfrom, (int fd, void *b, size_t n, int fl, struct sockaddr *sa, socklen_t *l), (fd, b, n, fl, sa, l),
               JOBIO_DIR_READ, sa && l ? *l : 0, sa, JOBIO_FITS(l, cap))
JOBIO_NET_WRAP(sendmsg, (int fd, const struct msghdr *m, int fl), (fd, m, fl), JOBIO_DIR_WRITE, 0,
               m ? m->msg_name : NULL, m->msg_namelen)
JOBIO_NET_WRAP(recvmsg, (int fd, struct msghdr *m, int fl), (fd, m, fl), JOBIO_DIR_READ,
               m && m->msg_name ? m->msg_namelen : 0, m ? m->msg_name : NULL, m->msg_namelen <= cap ? m->msg_namelen : 0)
JOBIO_NET_WRAP(__recv_chk, (int fd, void *b, size_t n, size_t blen, int fl), (fd, b, n, blen, fl), JOBIO_DIR_READ, 0,
               NULL, 0)
JOBIO_NET_WRAP(__recvfrom_chk, (int fd, void *b, size_t n, size_t blen, int fl, struct sockaddr *sa, socklen_t *l),
               (fd, b, n, blen, fl, sa, l), JOBIO_DIR_READ, sa && l ? *l : 0, sa, JOBIO_FITS(l, cap))
