/*
 * Transport: one non-blocking SOCK_SEQPACKET connection to $JOBIO_SOCKET, every message one frame.
 * Nothing waits: a missing listener, a full socket or a closed descriptor drops the frame and
 * counts it. The socket lives at a high descriptor number, is close-on-exec, and is re-validated
 * (fstat: same device and inode) before every use because programs close or dup2 over descriptors
 * they do not know about. Called under the flush lock (flush.c).
 */
#include <string.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "transport/transport.h"

#include "base/log.h"
#include "base/own.h"
#include "base/state.h"
#include "base/sys.h"

static int jobio_sock = -1;
static int jobio_knocked; /* this process has said that the socket refused it (jobio_knock) */
static dev_t jobio_sock_dev;
static ino_t jobio_sock_ino;
static uint64_t jobio_seq;
static uint64_t jobio_dropped_frames;

uint64_t jobio_dropped(void) { return __atomic_load_n(&jobio_dropped_frames, __ATOMIC_RELAXED); }
uint64_t jobio_transport_seq(void) { return jobio_seq; }

/* The application closed our socket (or dup2'd over it): forget it, never close its descriptor. */
void jobio_transport_forget(int fd) {
  if (fd == jobio_sock) {
    jobio_sock = -1;
    jobio_debug("socket descriptor closed by the program; will reconnect", NULL);
  }
}

void jobio_transport_after_fork(void) {
  /* the inherited connection is the parent's (SO_PEERCRED names the parent): close our copy */
  if (jobio_sock >= 0) {
    jobio_sys_close(jobio_sock);
    jobio_own_event(jobio_sock, JOBIO_OWN_CLOSED);
    jobio_sock = -1;
  }
  jobio_seq = 0; /* the child's frames are its own, numbered from 0 */
  jobio_knocked = 0; /* a child refused is another process to count */
  jobio_dropped_frames = 0;
}

static int jobio_sock_valid(void) {
  if (jobio_sock < 0) return 0;
  struct stat st;
  if (jobio_sys_fstat(jobio_sock, &st) != 0 || st.st_dev != jobio_sock_dev || st.st_ino != jobio_sock_ino ||
      !S_ISSOCK(st.st_mode)) {
    jobio_debug("socket descriptor replaced by the program; reconnecting", NULL);
    /* not ours any more: do not close it */
    jobio_own_event(jobio_sock, JOBIO_OWN_REPLACED);
    jobio_sock = -1;
    return 0;
  }
  return 1;
}

/* A non-blocking SOCK_SEQPACKET socket connected to `path`, or -1 (errno says why). */
static int jobio_connect_to(const char *path) {
  int fd = (int)syscall(SYS_socket, AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  struct sockaddr_un sa;
  memset(&sa, 0, sizeof sa);
  sa.sun_family = AF_UNIX;
  size_t len = strnlen(path, sizeof sa.sun_path - 1);
  memcpy(sa.sun_path, path, len);
  if (syscall(SYS_connect, fd, &sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1)) != 0) {
    int why = errno;
    jobio_sys_close(fd);
    errno = why;
    return -1;
  }
  return fd;
}

/*
 * The run's private socket refused this process (it runs as another user than the run's): say so,
 * once per process, on the socket `jobio run` keeps for that (JOBIO_REFUSED_SOCKET, which any user
 * may reach). The receiver counts the process by the kernel's credentials of the message; the
 * program's name it carries is only a label, for when the process is gone before the receiver can
 * read its /proc entry. Nothing waits; a failure is ignored.
 */
static void jobio_knock(void) {
  if (jobio_knocked || !jobio_cfg.refused_socket_path[0]) return;
  jobio_knocked = 1;
  int saved = errno;
  int fd = jobio_connect_to(jobio_cfg.refused_socket_path);
  if (fd >= 0) {
    size_t len = strnlen(jobio_g.exe, sizeof jobio_g.exe);
    syscall(SYS_sendto, fd, len > 0 ? jobio_g.exe : "?", len > 0 ? len : 1, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
    jobio_sys_close(fd);
  }
  errno = saved;
}

static int jobio_connect(void) {
  int fd = jobio_connect_to(jobio_cfg.socket_path);
  if (fd < 0) {
    int why = errno;
    static int warned;
    if (!warned++) jobio_log("cannot connect to JOBIO_SOCKET, frames are dropped; errno", why);
    if (why == EACCES || why == EPERM) jobio_knock();
    errno = why;
    return -1;
  }
  /* move out of the way of programs that use low descriptor numbers */
  int hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, JOBIO_HIGH_FD);
  if (hi < 0) hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, 64);
  if (hi >= 0) {
    jobio_sys_close(fd);
    fd = hi;
  }
  struct stat st;
  if (jobio_sys_fstat(fd, &st) != 0) {
    jobio_sys_close(fd);
    return -1;
  }
  jobio_sock_dev = st.st_dev;
  jobio_sock_ino = st.st_ino;
  jobio_own_event(fd, JOBIO_OWN_OPENED);
  jobio_sock = fd;
  return 0;
}

void jobio_transport_ready(void) {
  if (jobio_sock >= 0) jobio_sock_valid();
  if (jobio_sock < 0) jobio_connect();
}

void jobio_transport_send(const void *frame, size_t len) {
  jobio_seq++;
  if (jobio_sock >= 0) {
    long r = syscall(SYS_sendto, jobio_sock, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL, NULL, 0);
    if (r == (long)len) return;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) {
      /* peer gone (EPIPE, ECONNRESET, ENOTCONN) or descriptor lost: reconnect next time */
      if (jobio_sock_valid()) {
        jobio_sys_close(jobio_sock);
        jobio_own_event(jobio_sock, JOBIO_OWN_CLOSED);
      }
      jobio_sock = -1;
    }
  }
  __atomic_add_fetch(&jobio_dropped_frames, 1, __ATOMIC_RELAXED);
}
