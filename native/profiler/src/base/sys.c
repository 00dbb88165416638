/* Raw system calls and clocks: the library's own I/O, never through a wrapper (see sys.h). */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "base/sys.h"

long jobio_sys_open(int dirfd, const char *path, int flags, int mode) {
  return syscall(SYS_openat, dirfd, path, flags, mode);
}
long jobio_sys_close(int fd) { return syscall(SYS_close, fd); }
long jobio_sys_read(int fd, void *buf, size_t n) { return syscall(SYS_read, fd, buf, n); }
long jobio_sys_write(int fd, const void *buf, size_t n) { return syscall(SYS_write, fd, buf, n); }
long jobio_sys_fstat(int fd, struct stat *st) { return syscall(SYS_fstat, fd, st); }
long jobio_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags) {
  return syscall(SYS_newfstatat, dirfd, path, st, flags);
}
long jobio_sys_lseek(int fd, long off, int whence) { return syscall(SYS_lseek, fd, off, whence); }
void *jobio_sys_mmap(size_t len) {
  long p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p < 0 && p > -4096) return NULL;
  if ((void *)p == MAP_FAILED) return NULL;
  return (void *)p;
}
void jobio_sys_munmap(void *p, size_t len) { syscall(SYS_munmap, p, len); }
void jobio_sys_zero(void *p, size_t len) {
  /* Fresh zero pages over the range: no page is touched (a fork child must not copy them all). */
  if (syscall(SYS_mmap, p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
      -1)
    memset(p, 0, len);
}
long jobio_sys_fcntl(int fd, int cmd, long arg) { return syscall(SYS_fcntl, fd, cmd, arg); }
pid_t jobio_sys_getpid(void) { return (pid_t)syscall(SYS_getpid); }

uint64_t jobio_now_mono(void) { return jobio_now(); }
uint64_t jobio_now_real(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

