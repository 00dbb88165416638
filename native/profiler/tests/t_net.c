/* Network calls (counted on the "[network]" pseudo mount only with JOBIO_NETWORK=1):
 *   connect green 1, red 1; accept green 1, red 1 (EAGAIN); write (send, sendto, sendmsg, write)
 *   green 4; read (recv, recvfrom, recvmsg, read) green 4, red 1 (EAGAIN). */
#include <sys/socket.h>
#include <sys/un.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int sv[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  char b[100];
  CHECK(send(sv[0], t_buf, 100, 0) == 100 && recv(sv[1], b, 100, 0) == 100);
  CHECK(sendto(sv[0], t_buf, 10, 0, NULL, 0) == 10 && recvfrom(sv[1], b, 10, 0, NULL, NULL) == 10);
  struct iovec iov = {t_buf, 20};
  struct msghdr mh;
  memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  CHECK(sendmsg(sv[0], &mh, 0) == 20);
  iov.iov_base = b;
  CHECK(recvmsg(sv[1], &mh, 0) == 20);
  CHECK(write(sv[0], t_buf, 5) == 5 && read(sv[1], b, 5) == 5);
  CHECK(recv(sv[1], b, 10, MSG_DONTWAIT) == -1 && errno == EAGAIN);
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", P("sock"));
  CHECK(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(s, 4) == 0);
  int c = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(c >= 0 && connect(c, (struct sockaddr *)&sa, sizeof sa) == 0);
  int a = accept(s, NULL, NULL);
  CHECK(a >= 0);
  CHECK(accept4(s, NULL, NULL, SOCK_CLOEXEC) == -1 && errno == EAGAIN);
  int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
  snprintf(sa.sun_path, sizeof sa.sun_path, "%s", P("nosock"));
  CHECK(c2 >= 0 && connect(c2, (struct sockaddr *)&sa, sizeof sa) == -1);
  return 0;
}
