/*
 * Raw system calls and clocks (sys.c): the library's own I/O never goes through a wrapper (it would
 * count itself). The per-thread guard is tls.h's.
 */
#ifndef JOBIO_SYS_H
#define JOBIO_SYS_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

long jobio_sys_open(int dirfd, const char *path, int flags, int mode);
long jobio_sys_close(int fd);
long jobio_sys_read(int fd, void *buf, size_t n);
long jobio_sys_write(int fd, const void *buf, size_t n);
long jobio_sys_fstat(int fd, struct stat *st);
long jobio_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags);
long jobio_sys_lseek(int fd, long off, int whence);
void *jobio_sys_mmap(size_t len);
void jobio_sys_munmap(void *p, size_t len);
void jobio_sys_zero(void *p, size_t len); /* replace with fresh zero pages */
long jobio_sys_fcntl(int fd, int cmd, long arg);
pid_t jobio_sys_getpid(void);

/* The monotonic clock of durations, inline: the timed calls read it twice. */
JOBIO_HOT uint64_t jobio_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
uint64_t jobio_now_mono(void);
/* The coarse clock (a tick's resolution), inline: every untimed open and close reads it. */
JOBIO_HOT uint64_t jobio_now_coarse(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
uint64_t jobio_now_real(void); /* wall clock: the start and snapshot times of the frames */

#pragma GCC visibility pop
#endif /* JOBIO_SYS_H */
