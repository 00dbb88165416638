/* Network I/O per peer address (JOBIO_NETWORK=1), two modes (argv[2]):
 *   fold: datagrams from one UDP socket to 127.0.0.1 ... 127.0.0.18 (10 bytes each; only the one to
 *         127.0.0.1 has a receiver, which reads it with its source address); then a UDP socket
 *         connected to 127.0.0.19 sends 5 bytes. The first 16 peers get their own entry; the
 *         sends to .17 and .18, the connect to .19 and its send go to "[network]" (3 folded).
 *   v6:   a TCP connection over ::1 (connect, accept, 100 bytes from the client to the server),
 *         a UDP datagram of 7 bytes to ::1 read back with its source, a
 *         datagram of 3 bytes to ::ffff:127.0.0.1 (the IPv4 peer 127.0.0.1) read back, and 4 bytes
 *         to an abstract Unix name with an unprintable byte; a sendto to ::1 from an IPv4 socket
 *         fails (EAFNOSUPPORT) and counts red on the socket's own peer: none, so "[network]".
 *         Exits 77 when ::1 cannot be used.
 *   badbuf: sendto, sendmsg and recvfrom given an unreadable address fail with EFAULT and the
 *         program carries on (the library reads an address only after a call that succeeded):
 *         one datagram of 10 bytes to 127.0.0.1 is sent, then the three calls fail.
 *   repeat: a socket's last address (counted without looking its peer up): from one UDP socket, 10
 *         bytes to 127.0.0.1 three times, 20 to 127.0.0.2, 30 to 127.0.0.1 twice (the second to
 *         another port: a peer has none), then an address of another length (a sockaddr_storage's)
 *         of 127.0.0.1, 40 bytes; a socket connected to 127.0.0.3 (bound there) sends 5 bytes twice with sendto,
 *         no address and a sockaddr_in's length (the kernel takes NULL as "none"), and one failed
 *         sendto to an unreadable address of that length counts on its peer. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "t_util.h"

static struct sockaddr_in v4(const char *ip, in_port_t port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = port;
  CHECK(inet_pton(AF_INET, ip, &a.sin_addr) == 1);
  return a;
}

static struct sockaddr_in6 v6(const char *ip, in_port_t port) {
  struct sockaddr_in6 a;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_port = port;
  CHECK(inet_pton(AF_INET6, ip, &a.sin6_addr) == 1);
  return a;
}

/* A socket bound to addr (port 0: any), its port written back. */
static int bound(int type, void *addr, socklen_t len) {
  int s = socket(((struct sockaddr *)addr)->sa_family, type, 0);
  CHECK(s >= 0);
  if (bind(s, addr, len) != 0) return -1;
  CHECK(getsockname(s, addr, &len) == 0);
  return s;
}

static void fold(void) {
  struct sockaddr_in rx = v4("127.0.0.1", 0);
  int b = bound(SOCK_DGRAM, &rx, sizeof rx);
  CHECK(b >= 0);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(u >= 0);
  for (int i = 1; i <= 18; i++) {
    char ip[32];
    snprintf(ip, sizeof ip, "127.0.0.%d", i);
    struct sockaddr_in to = v4(ip, rx.sin_port);
    CHECK(sendto(u, t_buf, 10, 0, (struct sockaddr *)&to, sizeof to) == 10);
  }
  char buf[64];
  struct sockaddr_in from;
  socklen_t fl = sizeof from;
  CHECK(recvfrom(b, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl) == 10);
  struct sockaddr_in far = v4("127.0.0.19", rx.sin_port);
  int c = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr *)&far, sizeof far) == 0);
  CHECK(send(c, t_buf, 5, 0) == 5);
}

static void six(void) {
  struct sockaddr_in6 lo = v6("::1", 0);
  int l = bound(SOCK_STREAM, &lo, sizeof lo);
  if (l < 0) exit(77);
  CHECK(listen(l, 1) == 0);
  int c = socket(AF_INET6, SOCK_STREAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr *)&lo, sizeof lo) == 0);
  int a = accept(l, NULL, NULL);
  CHECK(a >= 0);
  char buf[128];
  CHECK(send(c, t_buf, 100, 0) == 100);
  CHECK(recv(a, buf, 100, MSG_WAITALL) == 100);

  struct sockaddr_in6 rx6 = v6("::1", 0);
  int b6 = bound(SOCK_DGRAM, &rx6, sizeof rx6);
  CHECK(b6 >= 0);
  int u6 = socket(AF_INET6, SOCK_DGRAM, 0);
  CHECK(u6 >= 0 && sendto(u6, t_buf, 7, 0, (struct sockaddr *)&rx6, sizeof rx6) == 7);
  struct sockaddr_storage from;
  socklen_t fl = sizeof from;
  CHECK(recvfrom(b6, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl) == 7);

  struct sockaddr_in rx4 = v4("127.0.0.1", 0);
  int b4 = bound(SOCK_DGRAM, &rx4, sizeof rx4);
  CHECK(b4 >= 0);
  struct sockaddr_in6 mapped = v6("::ffff:127.0.0.1", rx4.sin_port);
  CHECK(sendto(u6, t_buf, 3, 0, (struct sockaddr *)&mapped, sizeof mapped) == 3);
  struct iovec iov = {buf, sizeof buf};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_name = &from;
  mh.msg_namelen = sizeof from;
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  CHECK(recvmsg(b4, &mh, 0) == 3);
  CHECK(sendto(b4, t_buf, 9, 0, (struct sockaddr *)&rx6, sizeof rx6) == -1 && errno == EAFNOSUPPORT);

  struct sockaddr_un un;
  memset(&un, 0, sizeof un);
  un.sun_family = AF_UNIX;
  int n = snprintf(un.sun_path + 1, sizeof un.sun_path - 1, "jobio\001t%d", (int)getpid());
  socklen_t ul = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
  int ur = socket(AF_UNIX, SOCK_DGRAM, 0);
  CHECK(ur >= 0 && bind(ur, (struct sockaddr *)&un, ul) == 0);
  int us = socket(AF_UNIX, SOCK_DGRAM, 0);
  CHECK(us >= 0 && sendto(us, t_buf, 4, 0, (struct sockaddr *)&un, ul) == 4);
}

/* an invalid address (not NULL: that would mean "no address") the compiler cannot see through */
static void *volatile nowhere;

static void badbuf(void) {
  nowhere = (void *)(uintptr_t)8;
  struct sockaddr_in rx = v4("127.0.0.1", 0);
  int b = bound(SOCK_DGRAM, &rx, sizeof rx);
  CHECK(b >= 0);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(u >= 0 && sendto(u, t_buf, 10, 0, (struct sockaddr *)&rx, sizeof rx) == 10);
  errno = 0;
  CHECK(sendto(u, t_buf, 10, 0, nowhere, sizeof rx) == -1 && errno == EFAULT);
  struct iovec iov = {t_buf, 10};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_name = nowhere;
  mh.msg_namelen = sizeof rx;
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  errno = 0;
  CHECK(sendmsg(u, &mh, 0) == -1 && errno == EFAULT);
  char buf[64];
  socklen_t len = sizeof rx;
  errno = 0;
  CHECK(recvfrom(b, buf, sizeof buf, 0, nowhere, &len) == -1 && errno == EFAULT);
}

static void repeat(void) {
  struct sockaddr_in rx = v4("127.0.0.1", 0);
  int b = bound(SOCK_DGRAM, &rx, sizeof rx);
  CHECK(b >= 0);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(u >= 0);
  for (int i = 0; i < 3; i++) CHECK(sendto(u, t_buf, 10, 0, (struct sockaddr *)&rx, sizeof rx) == 10);
  struct sockaddr_in two = v4("127.0.0.2", rx.sin_port);
  CHECK(sendto(u, t_buf, 20, 0, (struct sockaddr *)&two, sizeof two) == 20);
  CHECK(sendto(u, t_buf, 30, 0, (struct sockaddr *)&rx, sizeof rx) == 30);
  struct sockaddr_in other = v4("127.0.0.1", (in_port_t)(rx.sin_port ^ 0x100));
  CHECK(sendto(u, t_buf, 30, 0, (struct sockaddr *)&other, sizeof other) == 30);
  struct sockaddr_storage big;
  memset(&big, 0, sizeof big);
  memcpy(&big, &rx, sizeof rx);
  CHECK(sendto(u, t_buf, 40, 0, (struct sockaddr *)&big, sizeof big) == 40);
  struct sockaddr_in three = v4("127.0.0.3", 0);
  CHECK(bound(SOCK_DGRAM, &three, sizeof three) >= 0); /* (a receiver: else the second send is refused) */
  int c = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr *)&three, sizeof three) == 0);
  for (int i = 0; i < 2; i++) CHECK(sendto(c, t_buf, 5, 0, NULL, sizeof(struct sockaddr_in)) == 5);
  nowhere = (void *)(uintptr_t)8;
  errno = 0;
  CHECK(sendto(c, t_buf, 5, 0, nowhere, sizeof(struct sockaddr_in)) == -1 && errno == EFAULT);
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc >= 3);
  if (strcmp(argv[2], "fold") == 0)
    fold();
  else if (strcmp(argv[2], "badbuf") == 0)
    badbuf();
  else if (strcmp(argv[2], "repeat") == 0)
    repeat();
  else
    six();
  return 0;
}
