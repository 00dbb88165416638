/* A descriptor replaced by another thread while a call on it waits in the kernel (argv[2]):
 *   sendto: a TCP socket connected to 127.0.0.1 (counted as network, JOBIO_NETWORK=1) sends 1 byte,
 *           then 64 MiB, with sendto and an IPv4 address (0.0.0.0: a connected socket ignores it); the peer reads
 *           nothing until the sending thread waits in sendto, then the main thread closes the
 *           socket's descriptor, opens a file on the same number, seeks it to 0xf0000000, and only
 *           then reads everything. The send completes on the socket (the kernel keeps it until the
 *           call returns): a transfer of 64 MiB, which the profiler must count on the network and
 *           nowhere else, whatever the descriptor's number now holds. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "t_util.h"

#define T_SEND_BYTES (64u << 20)

static int t_sock;
static pid_t t_sender_tid;
static char *t_big;
static ssize_t t_sent;
static struct sockaddr_in t_nowhere; /* 0.0.0.0 */

static void *sender(void *arg) {
  (void)arg;
  /* (one byte first: the thread's first counted call takes the library's slow way) */
  CHECK(sendto(t_sock, t_big, 1, 0, (struct sockaddr *)&t_nowhere, sizeof t_nowhere) == 1);
  __atomic_store_n(&t_sender_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
  t_sent = sendto(t_sock, t_big, T_SEND_BYTES, 0, (struct sockaddr *)&t_nowhere, sizeof t_nowhere);
  return NULL;
}

/* Is thread tid waiting in the system call nr? (/proc/self/task/TID/syscall starts with its number;
 * without that file the case cannot be set up: exit 77, skipped) */
static int waits_in(pid_t tid, long nr) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) exit(77);
  ssize_t n = read(fd, line, sizeof line - 1);
  close(fd);
  if (n <= 0) exit(77);
  line[n] = 0;
  return strtol(line, NULL, 10) == nr && line[0] != 'r';
}

static void reuse_during_sendto(void) {
  struct sockaddr_in lo;
  memset(&lo, 0, sizeof lo);
  lo.sin_family = AF_INET;
  lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int l = socket(AF_INET, SOCK_STREAM, 0);
  socklen_t ll = sizeof lo;
  CHECK(l >= 0 && bind(l, (struct sockaddr *)&lo, sizeof lo) == 0 && listen(l, 1) == 0);
  CHECK(getsockname(l, (struct sockaddr *)&lo, &ll) == 0);
  t_sock = socket(AF_INET, SOCK_STREAM, 0);
  CHECK(t_sock >= 0 && connect(t_sock, (struct sockaddr *)&lo, sizeof lo) == 0);
  int a = accept(l, NULL, NULL);
  CHECK(a >= 0);
  t_nowhere.sin_family = AF_INET;
  t_nowhere.sin_port = lo.sin_port;
  t_big = malloc(T_SEND_BYTES);
  CHECK(t_big != NULL);
  memset(t_big, 'x', T_SEND_BYTES);

  pthread_t th;
  CHECK(pthread_create(&th, NULL, sender, NULL) == 0);
  pid_t tid;
  while (!(tid = __atomic_load_n(&t_sender_tid, __ATOMIC_ACQUIRE)) || !waits_in(tid, SYS_sendto)) usleep(1000);

  int fd = t_sock;
  CHECK(close(fd) == 0);
  CHECK(open(P("reused"), O_CREAT | O_RDWR | O_TRUNC, 0644) == fd);
  CHECK(lseek(fd, (off_t)0xf0000000u, SEEK_SET) == (off_t)0xf0000000u);

  char *buf = malloc(1 << 20);
  CHECK(buf != NULL);
  size_t got = 0;
  while (got < T_SEND_BYTES + 1) {
    ssize_t n = read(a, buf, 1 << 20);
    CHECK(n > 0);
    got += (size_t)n;
  }
  CHECK(pthread_join(th, NULL) == 0);
  CHECK(t_sent == (ssize_t)T_SEND_BYTES);
  CHECK(close(fd) == 0);
  printf("sent %zd\n", t_sent);
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc >= 3);
  if (strcmp(argv[2], "sendto") == 0) reuse_during_sendto();
  else return 2;
  return 0;
}
