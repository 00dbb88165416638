/*
 * stdio. fread/fwrite count as read/write with the bytes the program asked stdio to move
 * (items * size returned), classified like read/write. glibc's stdio reaches the kernel through
 * internal symbols (__read, __write, __open, __close_nocancel), never through the interposable
 * read/write/open/close, so the buffered system calls under an fread are NOT counted a second
 * time (tests/t_stdio.c checks this). fopen/fclose count as open/close of the stream's descriptor.
 */
#include "record.h"

#undef fread_unlocked
#undef fwrite_unlocked

/* open(2) flags equivalent to an fopen mode, for the create decision */
static int jobio_mode_flags(const char *mode) {
  int flags = 0;
  if (!mode) return 0;
  switch (mode[0]) {
    case 'w': flags = O_WRONLY | O_CREAT | O_TRUNC; break;
    case 'a': flags = O_WRONLY | O_CREAT | O_APPEND; break;
    default: flags = O_RDONLY; break;
  }
  for (const char *p = mode + 1; *p && *p != ','; p++) {
    if (*p == '+') flags = (flags & ~(O_WRONLY | O_RDONLY)) | O_RDWR;
    if (*p == 'x') flags |= O_EXCL;
  }
  return flags;
}

static inline FILE *jobio_fopen_common(int sym, const char *path, const char *mode) {
  struct jobio_ctx c;
  int counted = jobio_begin_notime(&c);
  int flags = jobio_mode_flags(mode);
  int creates = counted ? jobio_open_creates(AT_FDCWD, path, flags) : 0;
  if (counted) jobio_start(&c);
  FILE *f = sym == JOBIO_SYM_fopen ? REAL(fopen)(path, mode) : REAL(fopen64)(path, mode);
  if (counted) jobio_rec_open(&c, AT_FDCWD, path, flags, creates, f ? fileno_unlocked(f) : -1, JOBIO_FDF_STDIO);
  return f;
}

JOBIO_EXPORT FILE *fopen(const char *path, const char *mode) { return jobio_fopen_common(JOBIO_SYM_fopen, path, mode); }
JOBIO_EXPORT FILE *fopen64(const char *path, const char *mode) {
  return jobio_fopen_common(JOBIO_SYM_fopen64, path, mode);
}

/* A FILE over an existing descriptor: an alias, not an open. */
JOBIO_EXPORT FILE *fdopen(int fd, const char *mode) {
  FILE *f = REAL(fdopen)(fd, mode);
  struct jobio_ctx c;
  if (f && jobio_begin_notime(&c) && (unsigned)fd < jobio_fd_cap) {
    jobio_fds[fd].flags |= JOBIO_FDF_STDIO;
    jobio_fds[fd].pos = JOBIO_POS_UNKNOWN;
  }
  return f;
}

/* freopen: the old stream's descriptor is closed, the path opened (usually on the same number). */
static inline FILE *jobio_freopen_common(int sym, const char *path, const char *mode, FILE *fp) {
  struct jobio_ctx c;
  if (!path || !fp || !jobio_begin_notime(&c))
    return sym == JOBIO_SYM_freopen ? REAL(freopen)(path, mode, fp) : REAL(freopen64)(path, mode, fp);
  int oldfd = fileno_unlocked(fp);
  int oldslot = oldfd >= 0 ? jobio_close_pre(oldfd) : -1;
  int flags = jobio_mode_flags(mode);
  int creates = jobio_open_creates(AT_FDCWD, path, flags);
  jobio_start(&c);
  FILE *f = sym == JOBIO_SYM_freopen ? REAL(freopen)(path, mode, fp) : REAL(freopen64)(path, mode, fp);
  if (oldfd >= 0) {
    struct jobio_ctx cc = c;
    cc.t0 = 0; /* the duration goes to the open */
    int saved = errno;
    jobio_rec_close(&cc, oldfd, oldslot, 0);
    errno = saved;
  }
  jobio_rec_open(&c, AT_FDCWD, path, flags, creates, f ? fileno_unlocked(f) : -1, JOBIO_FDF_STDIO);
  return f;
}
JOBIO_EXPORT FILE *freopen(const char *path, const char *mode, FILE *fp) {
  return jobio_freopen_common(JOBIO_SYM_freopen, path, mode, fp);
}
JOBIO_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *fp) {
  return jobio_freopen_common(JOBIO_SYM_freopen64, path, mode, fp);
}

/* items * size moved; a stream without a descriptor (fmemopen, open_memstream) is not I/O */
static inline void jobio_rec_stdio(struct jobio_ctx *c, FILE *fp, int dir, size_t items, size_t size) {
  int fd = fileno_unlocked(fp);
  if (fd < 0) return;
  jobio_rec_xfer(c, fd, dir, (int64_t)(items * size), 0);
}

#define JOBIO_STDIO(dir, fp, size, call_expr) \
  struct jobio_ctx c;                         \
  if (!jobio_begin(&c)) return call_expr; \
  size_t r = call_expr;                       \
  jobio_rec_stdio(&c, fp, dir, r, size);      \
  return r;

JOBIO_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_READ, fp, size, REAL(fread)(p, size, n, fp))
}
JOBIO_EXPORT size_t fread_unlocked(void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_READ, fp, size, REAL(fread_unlocked)(p, size, n, fp))
}
JOBIO_EXPORT size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_READ, fp, size, REAL(__fread_chk)(p, plen, size, n, fp))
}
JOBIO_EXPORT size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_READ, fp, size, REAL(__fread_unlocked_chk)(p, plen, size, n, fp))
}
JOBIO_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_WRITE, fp, size, REAL(fwrite)(p, size, n, fp))
}
JOBIO_EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_STDIO(JOBIO_DIR_WRITE, fp, size, REAL(fwrite_unlocked)(p, size, n, fp))
}

JOBIO_EXPORT int fclose(FILE *fp) {
  struct jobio_ctx c;
  if (!fp || !jobio_begin_notime(&c)) return REAL(fclose)(fp);
  int fd = fileno_unlocked(fp);
  if (fd < 0) return REAL(fclose)(fp);
  int slot = jobio_close_pre(fd);
  jobio_start(&c);
  int r = REAL(fclose)(fp);
  jobio_rec_close(&c, fd, slot, r == 0 ? 0 : -1);
  return r;
}
