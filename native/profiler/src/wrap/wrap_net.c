/*
 * Network calls, counted only with JOBIO_NETWORK=1, per peer address (net_peers.c): connect and
 * accept as their call types, send/recv (and read/write on sockets) as read/write with sizes;
 * classified red when they fail, green otherwise (a non-blocking connect in progress succeeded).
 * The peer of a connection is found once, at connect or accept (or when the socket is first met),
 * and kept in the descriptor's slot; a datagram call with an address counts on that address's peer.
 */
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

/* a transfer with an explicit peer (a datagram call with an address) */
static inline void jobio_rec_net_to(struct jobio_ctx *c, int slot, int dir, ssize_t r) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  if (slot >= 0)
    jobio_count_net(c, jobio_ms(c->t->block, (unsigned)slot), dir, r, est);
  else
    c->t->block->ignored++;
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

/* send/recv: like read/write on the socket (counted on the peer's slot when the socket is known) */
#define JOBIO_NETXFER(dir, fd, call_expr)                          \
  struct jobio_ctx c;                                              \
  if (!jobio_net_on(&c) || jobio_is_own(fd)) return call_expr;     \
  ssize_t r = call_expr;                                           \
  jobio_rec_xfer(&c, fd, dir, r, 0);                               \
  return r;

/*
 * The same for a call that may name its peer: a sent datagram's destination, a received one's
 * source (filled in by the kernel: only if it fit the caller's buffer, whose size `cap` is taken
 * before the call). Only after a call that succeeded, so the kernel has read (or written) the
 * address: a failed call may have failed on an unreadable one, and counts on the descriptor's peer.
 * Nothing of the caller's is read when the call is not counted.
 */
#define JOBIO_NETXFER_TO(dir, fd, cap_expr, name, namelen_after, call_expr)                        \
  struct jobio_ctx c;                                                                               \
  if (!jobio_net_on(&c) || jobio_is_own(fd)) return call_expr;                                      \
  socklen_t cap = (cap_expr);                                                                       \
  (void)cap;                                                                                        \
  ssize_t r = call_expr;                                                                            \
  socklen_t got = r >= 0 && (name) ? (namelen_after) : 0;                                          \
  if (got > 0) {                                                                                    \
    int saved = errno;                                                                              \
    jobio_rec_net_to(&c, jobio_net_addr_slot((const struct sockaddr *)(name), got), dir, r);       \
    errno = saved;                                                                                  \
  } else {                                                                                          \
    jobio_rec_xfer(&c, fd, dir, r, 0);                                                              \
  }                                                                                                 \
  return r;

/* a received source address is used only when the kernel's length fits what the caller gave */
#define JOBIO_FITS(lenp, cap) ((lenp) && *(lenp) <= (cap) ? *(lenp) : 0)

JOBIO_EXPORT ssize_t send(int fd, const void *b, size_t n, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_WRITE, fd, REAL(send)(fd, b, n, fl))
}
JOBIO_EXPORT ssize_t recv(int fd, void *b, size_t n, int fl) { JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(recv)(fd, b, n, fl)) }
JOBIO_EXPORT ssize_t sendto(int fd, const void *b, size_t n, int fl, const struct sockaddr *a, socklen_t l) {
  JOBIO_NETXFER_TO(JOBIO_DIR_WRITE, fd, 0, a, l, REAL(sendto)(fd, b, n, fl, a, l))
}
JOBIO_EXPORT ssize_t recvfrom(int fd, void *b, size_t n, int fl, struct sockaddr *a, socklen_t *l) {
  JOBIO_NETXFER_TO(JOBIO_DIR_READ, fd, a && l ? *l : 0, a, JOBIO_FITS(l, cap), REAL(recvfrom)(fd, b, n, fl, a, l))
}
JOBIO_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int fl) {
  JOBIO_NETXFER_TO(JOBIO_DIR_WRITE, fd, 0, m ? m->msg_name : NULL, m->msg_namelen, REAL(sendmsg)(fd, m, fl))
}
JOBIO_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int fl) {
  JOBIO_NETXFER_TO(JOBIO_DIR_READ, fd, m && m->msg_name ? m->msg_namelen : 0, m ? m->msg_name : NULL, m->msg_namelen <= cap ? m->msg_namelen : 0,
                   REAL(recvmsg)(fd, m, fl))
}
JOBIO_EXPORT ssize_t __recv_chk(int fd, void *b, size_t n, size_t blen, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(__recv_chk)(fd, b, n, blen, fl))
}
JOBIO_EXPORT ssize_t __recvfrom_chk(int fd, void *b, size_t n, size_t blen, int fl, struct sockaddr *a, socklen_t *l) {
  JOBIO_NETXFER_TO(JOBIO_DIR_READ, fd, a && l ? *l : 0, a, JOBIO_FITS(l, cap), REAL(__recvfrom_chk)(fd, b, n, blen, fl, a, l))
}
