/*
 * Network calls, counted only with JOBIO_NETWORK=1 on the "[network]" pseudo mount: connect and
 * accept as their call types, send/recv (and read/write on sockets) as read/write with sizes;
 * classified red when they fail, green otherwise (a non-blocking connect in progress succeeded).
 */
#include "record.h"

static inline int jobio_net_on(struct jobio_ctx *c) {
  return jobio_begin(c) && jobio_cfg.network;
}

static inline void jobio_mark_net(int fd) {
  int slot = jobio_network_slot();
  if (slot >= 0 && (unsigned)fd < jobio_fd_cap) jobio_fd_set(fd, JOBIO_FD_NET, (uint16_t)slot, 0, JOBIO_FDF_SAT, -1);
}

static inline void jobio_rec_net(struct jobio_ctx *c, int call, int cls) {
  uint64_t est;
  uint64_t t1 = jobio_stop(c, &est);
  jobio_count_slot(c, jobio_network_slot(), call, cls, est);
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
  if (ok) jobio_mark_net(fd);
  jobio_rec_net(&c, JOBIO_CALL_CONNECT, ok ? JOBIO_GREEN : JOBIO_RED);
  errno = saved;
  return r;
}

JOBIO_EXPORT int accept(int fd, struct sockaddr *a, socklen_t *len) {
  struct jobio_ctx c;
  if (!jobio_net_on(&c)) return REAL(accept)(fd, a, len);
  int r = REAL(accept)(fd, a, len);
  int saved = errno;
  if (r >= 0) jobio_mark_net(r);
  jobio_rec_net(&c, JOBIO_CALL_ACCEPT, r >= 0 ? JOBIO_GREEN : JOBIO_RED);
  errno = saved;
  return r;
}

JOBIO_EXPORT int accept4(int fd, struct sockaddr *a, socklen_t *len, int fl) {
  struct jobio_ctx c;
  if (!jobio_net_on(&c)) return REAL(accept4)(fd, a, len, fl);
  int r = REAL(accept4)(fd, a, len, fl);
  int saved = errno;
  if (r >= 0) jobio_mark_net(r);
  jobio_rec_net(&c, JOBIO_CALL_ACCEPT, r >= 0 ? JOBIO_GREEN : JOBIO_RED);
  errno = saved;
  return r;
}

/* send/recv: like read/write on the socket (counted on the network slot when the socket is known) */
#define JOBIO_NETXFER(dir, fd, call_expr)                          \
  struct jobio_ctx c;                                              \
  if (!jobio_net_on(&c) || jobio_is_own(fd)) return call_expr;     \
  ssize_t r = call_expr;                                           \
  jobio_rec_xfer(&c, fd, dir, r, 0);                               \
  return r;

JOBIO_EXPORT ssize_t send(int fd, const void *b, size_t n, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_WRITE, fd, REAL(send)(fd, b, n, fl))
}
JOBIO_EXPORT ssize_t recv(int fd, void *b, size_t n, int fl) { JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(recv)(fd, b, n, fl)) }
JOBIO_EXPORT ssize_t sendto(int fd, const void *b, size_t n, int fl, const struct sockaddr *a, socklen_t l) {
  JOBIO_NETXFER(JOBIO_DIR_WRITE, fd, REAL(sendto)(fd, b, n, fl, a, l))
}
JOBIO_EXPORT ssize_t recvfrom(int fd, void *b, size_t n, int fl, struct sockaddr *a, socklen_t *l) {
  JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(recvfrom)(fd, b, n, fl, a, l))
}
JOBIO_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_WRITE, fd, REAL(sendmsg)(fd, m, fl))
}
JOBIO_EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(recvmsg)(fd, m, fl))
}
JOBIO_EXPORT ssize_t __recv_chk(int fd, void *b, size_t n, size_t blen, int fl) {
  JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(__recv_chk)(fd, b, n, blen, fl))
}
JOBIO_EXPORT ssize_t __recvfrom_chk(int fd, void *b, size_t n, size_t blen, int fl, struct sockaddr *a, socklen_t *l) {
  JOBIO_NETXFER(JOBIO_DIR_READ, fd, REAL(__recvfrom_chk)(fd, b, n, blen, fl, a, l))
}
