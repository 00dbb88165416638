/*
 * Asynchronous I/O. libaio's io_submit (a library function, so interposable) is counted: each
 * submitted read/write request as one read/write of its requested bytes on its file (not timed:
 * the work happens after the call returns). POSIX AIO (aio_read, aio_write, lio_listio) is only
 * detected and reported as I/O that was not counted; so is io_uring (wrap_posix.c, at the mapping
 * of a ring). A file used this way has bytes the profiler may not see: its open is not red for
 * "nothing transferred".
 */
#include "account/record.h"
#include "base/real.h"
#include "base/state.h"
#include "process/fdtab.h"
#include "wrap/entry.h"

JOBIO_EXPORT int io_submit(void *ctx, long nr, struct iocb **iocbs) {
  struct jobio_ctx c;
  if (!jobio_begin_notime(&c)) return REAL(io_submit)(ctx, nr, iocbs);
  int r = REAL(io_submit)(ctx, nr, iocbs);
  int saved = errno;
  for (long i = 0; i < r && iocbs; i++) {
    const struct iocb *cb = iocbs[i];
    if (!cb) continue;
    int fd = (int)cb->aio_fildes, dir;
    uint64_t n = 0;
    switch (cb->aio_lio_opcode) {
      case IOCB_CMD_PREAD: dir = JOBIO_DIR_READ; n = cb->aio_nbytes; break;
      case IOCB_CMD_PWRITE: dir = JOBIO_DIR_WRITE; n = cb->aio_nbytes; break;
      case IOCB_CMD_PREADV:
      case IOCB_CMD_PWRITEV: {
        dir = cb->aio_lio_opcode == IOCB_CMD_PREADV ? JOBIO_DIR_READ : JOBIO_DIR_WRITE;
        const struct iovec *v = (const struct iovec *)(uintptr_t)cb->aio_buf;
        for (uint64_t k = 0; v && k < cb->aio_nbytes; k++) n += v[k].iov_len;
        break;
      }
      default: continue;
    }
    __atomic_add_fetch(&jobio_g.libaio_iocbs, 1, __ATOMIC_RELAXED);
    jobio_rec_xfer_est(&c, fd, dir, (int64_t)n, 0, 0, 0, 0);
  }
  errno = saved;
  return r;
}

static void jobio_posix_aio(int fd) {
  __atomic_add_fetch(&jobio_g.posix_aio_calls, 1, __ATOMIC_RELAXED);
  if (fd >= 0) jobio_ofd_mark_unseen(fd);
}

#define JOBIO_AIO(name, type)                                 \
  JOBIO_EXPORT int name(type *cb) {                           \
    struct jobio_ctx c;                                       \
    int r = REAL(name)(cb);                                   \
    if (r == 0 && jobio_begin_notime(&c)) {                   \
      int saved = errno;                                      \
      jobio_posix_aio(cb->aio_fildes);                        \
      errno = saved;                                          \
    }                                                         \
    return r;                                                 \
  }
JOBIO_AIO(aio_read, struct aiocb)
JOBIO_AIO(aio_write, struct aiocb)
JOBIO_AIO(aio_read64, struct aiocb64)
JOBIO_AIO(aio_write64, struct aiocb64)

#define JOBIO_LIO(name, type)                                                        \
  JOBIO_EXPORT int name(int mode, type *const list[], int n, struct sigevent *sev) { \
    struct jobio_ctx c;                                                              \
    int r = REAL(name)(mode, list, n, sev);                                          \
    if (jobio_begin_notime(&c)) {                                                    \
      int saved = errno;                                                             \
      for (int i = 0; i < n; i++)                                                    \
        if (list[i] && list[i]->aio_lio_opcode != LIO_NOP) jobio_posix_aio(list[i]->aio_fildes); \
      errno = saved;                                                                 \
    }                                                                                \
    return r;                                                                        \
  }
JOBIO_LIO(lio_listio, struct aiocb)
JOBIO_LIO(lio_listio64, struct aiocb64)
