/*
 * The error log: only $JOBIO_ERROR_LOG, never the job's stdout/stderr. At most 200 lines per
 * process; the file is opened at a high descriptor and re-validated before every write, because
 * the program may close or dup2 over descriptors it does not know about.
 */
#include "base/log.h"

#include "base/own.h"
#include "base/state.h"
#include "base/sys.h"
#include "base/tls.h"

static int jobio_log_fd = -1;
static int jobio_log_count;
static dev_t jobio_log_dev;
static ino_t jobio_log_ino;

static size_t jobio_fmt_u64(char *out, uint64_t v) {
  char tmp[24];
  size_t n = 0, i = 0;
  do {
    tmp[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) out[i++] = tmp[--n];
  return i;
}

void jobio_log_line(const char *msg, const char *arg, long num, int has_num) {
  if (!jobio_cfg.error_log[0]) return;
  if (__atomic_fetch_add(&jobio_log_count, 1, __ATOMIC_RELAXED) >= 200) return;
  int saved = errno;
  jobio_guard_enter();
  if (jobio_log_fd < 0) {
    int fd = (int)jobio_sys_open(AT_FDCWD, jobio_cfg.error_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
      int hi = (int)jobio_sys_fcntl(fd, F_DUPFD_CLOEXEC, JOBIO_HIGH_FD + 1);
      if (hi >= 0) {
        jobio_sys_close(fd);
        fd = hi;
      }
      struct stat st;
      if (jobio_sys_fstat(fd, &st) == 0) {
        jobio_log_dev = st.st_dev;
        jobio_log_ino = st.st_ino;
      }
      jobio_own_event(fd, JOBIO_OWN_OPENED);
      jobio_log_fd = fd;
    }
  }
  if (jobio_log_fd >= 0) {
    struct stat st;
    if (jobio_sys_fstat(jobio_log_fd, &st) != 0 || st.st_ino != jobio_log_ino || st.st_dev != jobio_log_dev)
      jobio_log_fd = -1; /* replaced behind our back (dup2 over it): never write into it */
  }
  if (jobio_log_fd >= 0) {
    char line[512];
    size_t n = 0;
    const char *prefix = "jobio: pid ";
    for (const char *p = prefix; *p; p++) line[n++] = *p;
    n += jobio_fmt_u64(line + n, (uint64_t)jobio_sys_getpid());
    line[n++] = ':';
    line[n++] = ' ';
    for (const char *p = msg; *p && n < 400; p++) line[n++] = *p;
    if (arg) {
      line[n++] = ' ';
      for (const char *p = arg; *p && n < 490; p++) line[n++] = *p;
    }
    if (has_num) {
      line[n++] = ' ';
      if (num < 0) {
        line[n++] = '-';
        num = -num;
      }
      n += jobio_fmt_u64(line + n, (uint64_t)num);
    }
    line[n++] = '\n';
    jobio_sys_write(jobio_log_fd, line, n);
  }
  jobio_guard_leave();
  errno = saved;
}

/* The program closed or replaced the log's descriptor: reopened at the next line. */
void jobio_log_forget(int fd) {
  if (fd == jobio_log_fd) jobio_log_fd = -1;
}

void jobio_log(const char *msg, long num) { jobio_log_line(msg, NULL, num, 1); }
void jobio_debug(const char *msg, const char *arg) {
  if (jobio_cfg.debug) jobio_log_line(msg, arg, 0, 0);
}
