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
 * four bytes; a peer has no port) with where its peer's counters are, so a socket that sends to (or
 * receives from) the same host as in its last addressed call counts without looking the peer up. An
 * address of another family, or one folded into "[network]" (each fold is counted), is looked up
 * every call.
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
  struct jobio_net_last last = {.moff = JOBIO_MOFF(slot), .addr = jobio_net_v4(a)};
  e->net_last = last; /* (one word: a reader on another thread sees the old pair or the new one) */
}
/* The counters of a socket's last addressed call's peer when the IPv4 address a (at least a
 * sockaddr_in's length) is that call's, else 0. */
JOBIO_HOT uint32_t jobio_net_last_moff(const struct jobio_fd *e, const void *a) {
  /* (the address first: it differs when the family does; the family then; the offset last) */
  if (JOBIO_LIKELY(e->net_last.addr == jobio_net_v4(a)) && JOBIO_LIKELY(((const struct sockaddr *)a)->sa_family == AF_INET))
    return e->net_last.moff;
  return 0;
}
/* Where a transfer is counted inline: the byte offset of a peer's counters in a thread block, the
 * descriptor's peer when the call named no address, else the address's when it is the descriptor's
 * last; 0: the general record. */
JOBIO_HOT uint32_t jobio_net_fast_moff(const struct jobio_fd *e, const void *a, socklen_t got) {
  /* (the length first: an IPv4 address's, tested once, also says that one was named) */
  if (JOBIO_LIKELY(got >= (socklen_t)sizeof(struct sockaddr_in)) && a) return jobio_net_last_moff(e, a);
  if (!got || !a) return JOBIO_MOFF(e->slot);
  return 0;
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

/* After a timed call that was counted inline: a flush due? Returns r (tail calls). */
#define JOBIO_NET_TIMED_RET(t1, r)                                                                                 \
  do {                                                                                                             \
    if (JOBIO_UNLIKELY((t1) >= __atomic_load_n(&jobio_g.next_tick_ns, __ATOMIC_RELAXED))) return jobio_tick_ret(t1, r); \
    return r;                                                                                                      \
  } while (0)

/*
 * After the call (r; t1, est: a timed call's end and estimate): inline, a transfer that moved bytes
 * on a socket whose peer is known (jobio_net_fast_moff; a descriptor counted as network means
 * network metering is on); the rest is jobio_net_record. Returns from the wrapper's body.
 */
#define JOBIO_NET_AFTER(timed, t1, est, dir, addr, got_after)                                                      \
  struct jobio_fd *e;                                                                                              \
  if (JOBIO_LIKELY(r > 0) && JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) &&                                          \
      JOBIO_LIKELY((e = &jobio_fds[fd])->kind == JOBIO_FD_NET)) {                                                  \
    const void *fa = (addr);                                                                                       \
    uint32_t mo = jobio_net_fast_moff(e, fa, fa ? (got_after) : 0);                                                \
    if (JOBIO_LIKELY(mo != 0) &&                                                                                   \
        JOBIO_LIKELY(jobio_count_net_fast((char *)jobio_t.block + mo, dir, (uint64_t)r, timed, est, jobio_t.last_dt))) { \
      if (timed) JOBIO_NET_TIMED_RET(t1, r);                                                                       \
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
 * by the slow half before it enters a body), so read without the resolver's call, whose possibility
 * alone would make the bodies save their arguments; a plain read (the slot, once set, never
 * changes), so the call takes it as its operand. */
#define JOBIO_NET_REAL(name) ((jobio_fn_##name)jobio_real[JOBIO_SYM_##name])

/* The bodies: jobio_timed_NAME, jobio_untimed_NAME, jobio_slow_NAME. */
#define JOBIO_NET_BODIES(name, params, args, dir, cap_expr, addr, got_after)                                       \
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
  }
/* The exported wrapper: ready? timed? then a jump to the body (timed_body, untimed_body). */
#define JOBIO_NET_EXPORT(name, params, args, timed_body, untimed_body)                                             \
  JOBIO_EXPORT ssize_t name params {                                                                               \
    struct jobio_tls *t = &jobio_t;                                                                                \
    jobio_fn_##name fn;                                                                                            \
    if (JOBIO_UNLIKELY(!JOBIO_READY(t, fn, name))) return jobio_slow_##name args;                                  \
    if (jobio_timed_now(t)) return timed_body args;                                                                \
    return untimed_body args;                                                                                      \
  }
#define JOBIO_NET_WRAP(name, params, args, dir, cap_expr, addr, got_after)                                         \
  JOBIO_NET_BODIES(name, params, args, dir, cap_expr, addr, got_after)                                             \
  JOBIO_NET_EXPORT(name, params, args, jobio_timed_##name, jobio_untimed_##name)

/* a received source address is used only when the kernel's length fits what the caller gave */
#define JOBIO_FITS(lenp, cap) ((lenp) && *(lenp) <= (cap) ? *(lenp) : 0)

JOBIO_NET_WRAP(send, (int fd, const void *b, size_t n, int fl), (fd, b, n, fl), JOBIO_DIR_WRITE, 0, NULL, 0)
JOBIO_NET_WRAP(recv, (int fd, void *b, size_t n, int fl), (fd, b, n, fl), JOBIO_DIR_READ, 0, NULL, 0)
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

/*
 * sendto names its destination before the call, so the common case is decided from the arguments
 * before it (a socket counted as network, an address of an IPv4 address's length at least) without
 * reading the caller's address, which only the kernel reads first (an unreadable one fails the
 * call): then only the descriptor's entry and the address wait across the call, in the frame
 * (JOBIO_SPILL). Anything else goes to the general bodies (JOBIO_NET_BODIES).
 */
JOBIO_NET_BODIES(sendto, (int fd, const void *b, size_t n, int fl, const struct sockaddr *sa, socklen_t l),
                 (fd, b, n, fl, sa, l), JOBIO_DIR_WRITE, 0, sa, l)
#define JOBIO_SENDTO_PARAMS (int fd, const void *b, size_t n, int fl, const struct sockaddr *sa, socklen_t l)
#define JOBIO_SENDTO_ARGS (fd, b, n, fl, sa, l)
/* The entry of a socket counted as network that an address of l bytes may name an IPv4 peer on (the
 * length of a sockaddr_in: the other lengths go the general way, which needs the length after the
 * call), else NULL. */
JOBIO_HOT struct jobio_fd *jobio_sendto_v4(int fd, socklen_t l) {
  struct jobio_fd *e;
  if (JOBIO_LIKELY((unsigned)fd < jobio_fd_cap) && JOBIO_LIKELY((e = &jobio_fds[fd])->kind == JOBIO_FD_NET) &&
      JOBIO_LIKELY(l == (socklen_t)sizeof(struct sockaddr_in)))
    return e;
  return NULL;
}
/* The inline count after the call: bytes sent to the socket's last peer. The entry is read again
 * after the call, so its kind too: another thread may have closed the descriptor meanwhile and
 * opened a file on its number, whose offset (the same word as net_last) is no peer's counters. */
JOBIO_HOT uint32_t jobio_sendto_moff(ssize_t r, const struct jobio_fd *e, const struct sockaddr *sa) {
  /* (no address: the descriptor's peer, in the general record) */
  if (JOBIO_LIKELY(r > 0) && JOBIO_LIKELY(sa != NULL) && JOBIO_LIKELY(e->kind == JOBIO_FD_NET)) return jobio_net_last_moff(e, sa);
  return 0;
}
/* After the call, when inline counting did not take it: the general record (the descriptor from its
 * entry; the address's length is a sockaddr_in's). */
JOBIO_HOT ssize_t jobio_sendto_record(uint64_t t1, uint64_t est, struct jobio_fd *e, ssize_t r, const struct sockaddr *sa) {
  const struct sockaddr *a = r >= 0 ? sa : NULL;
  return jobio_net_record(t1, est, (int)(e - jobio_fds), JOBIO_DIR_WRITE, r, a, a ? (socklen_t)sizeof(struct sockaddr_in) : 0);
}
static __attribute__((noinline)) ssize_t jobio_untimed_v4_sendto JOBIO_SENDTO_PARAMS {
  struct jobio_fd *e = jobio_sendto_v4(fd, l);
  if (JOBIO_UNLIKELY(!e)) return jobio_untimed_sendto JOBIO_SENDTO_ARGS;
  struct jobio_fd *ke = e;
  const struct sockaddr *ka = sa;
  JOBIO_SPILL("+m"(ke), "+m"(ka));
  ssize_t r = JOBIO_NET_REAL(sendto) JOBIO_SENDTO_ARGS;
  JOBIO_SPILL("+m"(ke), "+m"(ka));
  uint32_t mo = jobio_sendto_moff(r, ke, ka);
  if (JOBIO_LIKELY(mo != 0) && JOBIO_LIKELY(jobio_count_net_fast((char *)jobio_t.block + mo, JOBIO_DIR_WRITE, (uint64_t)r, 0, 0, 0)))
    return r;
  return jobio_sendto_record(0, 0, ke, r, ka);
}
static __attribute__((noinline)) ssize_t jobio_timed_v4_sendto JOBIO_SENDTO_PARAMS {
  struct jobio_fd *e = jobio_sendto_v4(fd, l);
  if (JOBIO_UNLIKELY(!e)) return jobio_timed_sendto JOBIO_SENDTO_ARGS;
  struct jobio_tls *t = &jobio_t;
  struct timespec ts0, ts1;
  /* (copies in the frame: the arguments themselves stay registers, so the fallback above is a jump) */
  struct jobio_fd *ke = e;
  int kfd = fd, kfl = fl;
  const void *kb = b;
  size_t kn = n;
  const struct sockaddr *ka = sa;
  uint64_t w = t->gap_weight;
  t->countdown = jobio_next_gap_inline(t);
  JOBIO_SPILL(JOBIO_MEM(kfd, kb, kn, kfl, ka), "+m"(ke), "+m"(w));
  clock_gettime(CLOCK_MONOTONIC, &ts0);
  JOBIO_SPILL(JOBIO_MEM(kfd, kb, kn, kfl, ka), "+m"(ke), "+m"(w));
  ssize_t r = JOBIO_NET_REAL(sendto)(kfd, kb, kn, kfl, ka, (socklen_t)sizeof(struct sockaddr_in));
  JOBIO_SPILL("+m"(r));
  clock_gettime(CLOCK_MONOTONIC, &ts1);
  JOBIO_SPILL("+m"(r), "+m"(ke), "+m"(ka));
  const ssize_t rv = r; /* (a copy: the frame slot may alias the counters for the compiler) */
  uint64_t t1 = jobio_ts_ns(&ts1);
  t->last_dt = t1 - jobio_ts_ns(&ts0);
  uint64_t est = jobio_scale(t->last_dt, w);
  uint32_t mo = jobio_sendto_moff(rv, ke, ka);
  if (JOBIO_LIKELY(mo != 0) && JOBIO_LIKELY(jobio_count_net_fast((char *)t->block + mo, JOBIO_DIR_WRITE, (uint64_t)rv, 1, est, t->last_dt)))
    JOBIO_NET_TIMED_RET(t1, rv);
  return jobio_sendto_record(t1, est, ke, rv, ka);
}
JOBIO_NET_EXPORT(sendto, JOBIO_SENDTO_PARAMS, JOBIO_SENDTO_ARGS, jobio_timed_v4_sendto, jobio_untimed_v4_sendto)
