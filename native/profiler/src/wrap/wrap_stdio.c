/*
 * stdio, at two levels.
 *   - File-system level (the read/write counts, like strace's): the buffer fills and flushes a call
 *     causes, deduced from the stream's buffer before and after it (stdio_model.c), because glibc
 *     reaches the kernel through internal symbols that cannot be interposed. Flushes nobody calls
 *     (exit's flush of every stream) are counted from the destructor.
 *   - Application level: how many fread, fprintf, fgets ... calls, and the bytes they moved between
 *     the program and stdio (struct jobio_mount_ext.stdio_*), reported apart.
 * fopen/fclose count as open/close of the stream's descriptor. Streams without a descriptor
 * (fmemopen, open_memstream) and streams on pipes, terminals and other ignored files are not counted.
 * The stream is locked (flockfile, recursive) around the call so its buffer is not moved by another
 * thread between the two looks.
 */
#include <string.h>
#include <sys/mman.h>

#include "wrap/wrap_stdio.h"

#include "account/count.h"
#include "account/record.h"
#include "account/sampling.h"
#include "account/stdio_model.h"
#include "base/real.h"
#include "base/sys.h"
#include "base/tls.h"
#include "process/fdtab.h"
#include "process/thread.h"
#include "wrap/entry.h"

#undef fread_unlocked
#undef fwrite_unlocked
#undef fgetc_unlocked
#undef getc_unlocked
#undef fputc_unlocked
#undef putc_unlocked
#undef fgets_unlocked
#undef fputs_unlocked
#undef getc
#undef putc

/* ---------------- streams seen, by descriptor (for the flush at exit) ---------------- */
static FILE **jobio_files;

static __attribute__((noinline)) void jobio_file_register_slow(int fd, FILE *fp) {
  if ((unsigned)fd >= jobio_fd_cap) return;
  FILE **t = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  if (!t) {
    FILE **n = jobio_sys_mmap((size_t)jobio_fd_cap * sizeof(FILE *));
    if (!n) return;
    FILE **expected = NULL;
    if (!__atomic_compare_exchange_n(&jobio_files, &expected, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      jobio_sys_munmap(n, (size_t)jobio_fd_cap * sizeof(FILE *));
      n = expected;
    }
    t = n;
  }
  if (t[fd] != fp) t[fd] = fp;
}
/* (inline: every counted stdio call registers its stream; it is there already but the first time) */
static inline void jobio_file_register(int fd, FILE *fp) {
  FILE **t = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  if (JOBIO_LIKELY(t != NULL && (unsigned)fd < jobio_fd_cap && t[fd] == fp)) return;
  jobio_file_register_slow(fd, fp);
}

static void jobio_file_forget(int fd) {
  FILE **t = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  if (t && (unsigned)fd < jobio_fd_cap) t[fd] = NULL;
}

/* ---------------- the shape of a counted stdio call ---------------- */
struct jobio_sc {
  struct jobio_ctx c;
  FILE *fp;
  int fd;
  int slot;
  struct jobio_fst s0; /* the buffer before the call */
  int64_t off0;        /* seeks and position queries: glibc's kernel offset of the stream before the call */
  int64_t kern0;       /* seeks: the kernel offset before the call (off0, or asked when that is unknown) */
};

/* What the end of a counted call works with (jobio_sc_stop). */
struct jobio_sc_after {
  struct jobio_fst s1;   /* the buffer after the call */
  struct jobio_fs_ops o; /* where the deduced system calls go */
};

/* Is this call on a counted stream? Then lock it, look at its buffer and maybe start the clock.
 * pos (seeks and position queries): 1 keep glibc's kernel offset of the stream in off0; 2 the same,
 * asking the kernel when glibc does not know it (as lseek's wrapper does for a stream's descriptor). */
static int jobio_sc_begin_at(struct jobio_sc *s, FILE *fp, int pos) {
  if (!fp || !jobio_begin_notime(&s->c)) return 0;
  /* fileno_unlocked without its call (and without its EBADF for a stream that is no file's) */
  int fd = (fp->_flags & JOBIO_IO_IS_FILEBUF) ? fp->_fileno : -1;
  if ((unsigned)fd >= jobio_fd_cap) return 0;
  struct jobio_fd *e = &jobio_fds[fd];
  if (e->flags & JOBIO_FDF_PROV) jobio_fd_confirm(fd, 0, 0, 0);
  /* (a stream's descriptor is a file's, known since its open: its slot is in its entry) */
  if (JOBIO_UNLIKELY(e->kind != JOBIO_FD_FILE) && (e->kind != JOBIO_FD_UNKNOWN || jobio_fd_learn(fd) != JOBIO_FD_FILE)) return 0;
  int slot = e->slot;
  jobio_file_register(fd, fp);
  s->fp = fp;
  s->fd = fd;
  s->slot = slot;
  flockfile(fp);
  jobio_fst_take(fp, &s->s0);
  if (pos) {
    s->kern0 = s->off0 = (int64_t)fp->_offset;
    if (s->off0 < 0 && pos == 2) s->kern0 = jobio_seek_pre(fd, SEEK_SET);
  }
  jobio_start(&s->c);
  return 1;
}
/*
 * The reads and writes (no position wanted): the common stream, a file's whose descriptor entry is
 * settled and which is registered already, takes a path that keeps only s and fp across the lock
 * (few saved registers); the rest goes the general way.
 */
static int jobio_sc_begin(struct jobio_sc *s, FILE *fp) {
  struct jobio_tls *t = &jobio_t;
  FILE **reg = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  int fd;
  struct jobio_fd *e;
  if (JOBIO_UNLIKELY(!fp || t->busy != 0 || !reg || !(fp->_flags & JOBIO_IO_IS_FILEBUF) ||
                     (unsigned)(fd = fp->_fileno) >= jobio_fd_cap || (e = &jobio_fds[fd])->kind != JOBIO_FD_FILE ||
                     (e->flags & JOBIO_FDF_PROV) || reg[fd] != fp))
    return jobio_sc_begin_at(s, fp, 0);
  s->c.t = t;
  s->c.t0 = 0;
  s->fp = fp;
  s->fd = fd;
  s->slot = e->slot;
  flockfile(fp);
  jobio_fst_take(fp, &s->s0);
  jobio_start(&s->c);
  return 1;
}

/* The call has returned: stop the clock, keep errno aside, look at the buffer again and unlock the
 * stream. The deductions follow, then jobio_sc_end with the time and errno this returned (kept out
 * of *a, whose address the deductions take, so that they stay in registers across them). */
static inline uint64_t jobio_sc_stop(struct jobio_sc *s, struct jobio_sc_after *a, int *saved_errno) {
  uint64_t est;
  uint64_t t1 = jobio_stop(&s->c, &est);
  *saved_errno = errno;
  jobio_fst_take(s->fp, &a->s1);
  funlockfile(s->fp);
  a->o = (struct jobio_fs_ops){&s->c, s->fd, s->c.t0 != 0, est, 0};
  /* the stream's first buffer, sized by an fstat of its descriptor (_IO_file_doallocate; an
   * unbuffered stream gets its one-byte buffer without one) */
  if (JOBIO_UNLIKELY(!s->s0.bufb) && a->s1.bufb && !(a->s1.flags & 0x0002 /* _IO_UNBUFFERED */)) jobio_fs_fstat(&a->o);
  return t1;
}

static inline void jobio_sc_end(int saved_errno, uint64_t t1) {
  errno = saved_errno;
  jobio_after(t1);
}

static void jobio_sc_app(struct jobio_sc *s, int fn, uint64_t bytes) {
  struct jobio_mstats *m = jobio_ms(s->c.t->block, (unsigned)s->slot);
  m->ext.stdio_calls[fn]++;
  m->ext.stdio_bytes[fn] += bytes;
}

/* The end of a call the buffer answered alone (jobio_fs_reads_none, jobio_fs_writes_none): no
 * system call to deduce, the application-level count only. Nothing here sets errno (funlockfile
 * does not; a due tick keeps it itself), so the call's errno stays as it is. */
static inline void jobio_sc_quiet(struct jobio_sc *s, int fn, uint64_t app_bytes) {
  uint64_t est;
  uint64_t t1 = jobio_stop(&s->c, &est);
  if (fn >= 0) jobio_sc_app(s, fn, app_bytes);
  funlockfile(s->fp);
  jobio_after(t1);
}

/* After a reading call, the model's way (the buffer was refilled, or something else changed). */
static __attribute__((noinline)) void jobio_sc_read_model(struct jobio_sc *s, int fn, int64_t consumed, uint64_t app_bytes,
                                                          uint64_t fread_want, uint64_t min_consumed) {
  struct jobio_sc_after a;
  int saved;
  uint64_t t1 = jobio_sc_stop(s, &a, &saved);
  jobio_fs_reads(&a.o, &s->s0, &a.s1, consumed, fread_want, min_consumed);
  if (fn >= 0) jobio_sc_app(s, fn, app_bytes);
  jobio_sc_end(saved, t1);
}
/* After a reading call: consumed as for jobio_fs_reads. */
static void jobio_sc_read(struct jobio_sc *s, int fn, int64_t consumed, uint64_t app_bytes, uint64_t fread_want,
                          uint64_t min_consumed) {
  if (JOBIO_LIKELY(jobio_fs_reads_none(&s->s0, s->fp, consumed, min_consumed)))
    jobio_sc_quiet(s, fn, app_bytes);
  else
    jobio_sc_read_model(s, fn, consumed, app_bytes, fread_want, min_consumed);
}

/* After a writing call, the model's way (the buffer was flushed, or something else changed). */
static __attribute__((noinline)) void jobio_sc_write_model(struct jobio_sc *s, int fn, uint64_t accepted, int xsputn) {
  struct jobio_sc_after a;
  int saved;
  uint64_t t1 = jobio_sc_stop(s, &a, &saved);
  jobio_fs_writes(&a.o, &s->s0, &a.s1, accepted, xsputn);
  if (fn >= 0) jobio_sc_app(s, fn, accepted);
  jobio_sc_end(saved, t1);
}
/* After a writing call that took `accepted` bytes. */
static void jobio_sc_write(struct jobio_sc *s, int fn, uint64_t accepted, int xsputn) {
  if (JOBIO_LIKELY(jobio_fs_writes_none(&s->s0, s->fp, accepted)))
    jobio_sc_quiet(s, fn, accepted);
  else
    jobio_sc_write_model(s, fn, accepted, xsputn);
}

/* ---------------- open and close ---------------- */
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

/* An append-only stream: glibc seeks its new descriptor to the end inside fopen (_IO_file_open),
 * forward from 0, or to where it is when the file is empty (the kernel is asked where that is). */
static void jobio_fopen_append_seek(struct jobio_ctx *c, int fd) {
  int saved = errno;
  struct jobio_ctx nc = *c;
  nc.t0 = 0; /* (the duration went to the open) */
  struct jobio_fs_ops o = {&nc, fd, 0, 0, 0};
  jobio_fs_seek(&o, 0, jobio_seek_pre(fd, SEEK_SET), 0, 0, 0);
  errno = saved;
}

static inline FILE *jobio_fopen_common(int sym, const char *path, const char *mode) {
  struct jobio_ctx c;
  int counted = jobio_begin_notime(&c);
  int flags = jobio_mode_flags(mode);
  int creates = counted ? jobio_open_creates(AT_FDCWD, path, flags) : 0;
  if (counted) jobio_start(&c);
  FILE *f = sym == JOBIO_SYM_fopen ? REAL(fopen)(path, mode) : REAL(fopen64)(path, mode);
  if (counted) {
    int fd = f ? fileno_unlocked(f) : -1;
    jobio_rec_open(&c, AT_FDCWD, path, flags, creates, fd, JOBIO_FDF_STDIO);
    if (fd >= 0) jobio_file_register(fd, f);
    if (fd >= 0 && mode[0] == 'a' && !strchr(mode, '+')) jobio_fopen_append_seek(&c, fd);
  }
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
    jobio_file_register(fd, f);
  }
  return f;
}

/* The pending bytes of a stream about to be flushed by a call we do not model (fclose, freopen). */
static void jobio_flush_before(struct jobio_ctx *c, FILE *fp, int fd) {
  if (fd < 0 || (unsigned)fd >= jobio_fd_cap || jobio_fds[fd].kind != JOBIO_FD_FILE) return;
  struct jobio_fst s0;
  jobio_fst_take(fp, &s0);
  struct jobio_ctx nc = *c;
  nc.t0 = 0;
  struct jobio_fs_ops o = {&nc, fd, 0, 0, 0};
  jobio_fs_flush(&o, &s0);
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
  if (oldfd >= 0) {
    jobio_flush_before(&c, fp, oldfd);
    jobio_file_forget(oldfd);
  }
  jobio_start(&c);
  FILE *f = sym == JOBIO_SYM_freopen ? REAL(freopen)(path, mode, fp) : REAL(freopen64)(path, mode, fp);
  if (oldfd >= 0) {
    struct jobio_ctx cc = c;
    cc.t0 = 0; /* the duration goes to the open */
    int saved = errno;
    jobio_rec_close(&cc, oldfd, oldslot, 0);
    errno = saved;
  }
  int fd = f ? fileno_unlocked(f) : -1;
  jobio_rec_open(&c, AT_FDCWD, path, flags, creates, fd, JOBIO_FDF_STDIO);
  if (fd >= 0) jobio_file_register(fd, f);
  return f;
}
JOBIO_EXPORT FILE *freopen(const char *path, const char *mode, FILE *fp) {
  return jobio_freopen_common(JOBIO_SYM_freopen, path, mode, fp);
}
JOBIO_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *fp) {
  return jobio_freopen_common(JOBIO_SYM_freopen64, path, mode, fp);
}

JOBIO_EXPORT int fclose(FILE *fp) {
  struct jobio_ctx c;
  if (!fp || !jobio_begin_notime(&c)) return REAL(fclose)(fp);
  int fd = fileno_unlocked(fp);
  if (fd < 0) return REAL(fclose)(fp);
  int slot = jobio_close_pre(fd);
  jobio_flush_before(&c, fp, fd); /* its last flush, counted before the close */
  jobio_file_forget(fd);
  jobio_start(&c);
  int r = REAL(fclose)(fp);
  jobio_rec_close(&c, fd, slot, r == 0 ? 0 : -1);
  return r;
}

/* ---------------- the body of a counted call ---------------- */
/* Every wrapper below: counted if its stream is (the statements after call_expr see the call s). */
#define JOBIO_SC_CALL(type, fpv, call_expr, ...) \
  JOBIO_WRAP_BODY(struct jobio_sc s, jobio_sc_begin(&s, (fpv)), type, call_expr, __VA_ARGS__)

/* The variadic entry points of the printf and scanf families: the va_list to their common body. */
#define JOBIO_VA_CALL(vcall) \
  va_list ap;                \
  va_start(ap, fmt);         \
  int r = vcall;             \
  va_end(ap);                \
  return r;

/* ---------------- reading ---------------- */
#define JOBIO_FREAD(call_expr)         \
  JOBIO_SC_CALL(size_t, fp, call_expr, \
                jobio_sc_read(&s, JOBIO_STDIO_FREAD, (int64_t)(r * size), (r * size), (size * n), 0))
JOBIO_EXPORT size_t fread(void *p, size_t size, size_t n, FILE *fp) { JOBIO_FREAD(REAL(fread)(p, size, n, fp)) }
JOBIO_EXPORT size_t fread_unlocked(void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_FREAD(REAL(fread_unlocked)(p, size, n, fp))
}
JOBIO_EXPORT size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp) {
  JOBIO_FREAD(REAL(__fread_chk)(p, plen, size, n, fp))
}
JOBIO_EXPORT size_t __fread_unlocked_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp) {
  JOBIO_FREAD(REAL(__fread_unlocked_chk)(p, plen, size, n, fp))
}

static inline void jobio_sc_fgets(struct jobio_sc *s, const char *r, int n) {
  size_t got = r ? strlen(r) : 0; /* (a line may hold NUL bytes: at least this much) */
  jobio_sc_read(s, JOBIO_STDIO_FGETS, n - 1 < 4096 ? JOBIO_CONSUMED_UNKNOWN : (int64_t)got, got, 0, got);
}
#define JOBIO_FGETS(call_expr) JOBIO_SC_CALL(char *, fp, call_expr, jobio_sc_fgets(&s, r, n))
JOBIO_EXPORT char *fgets(char *b, int n, FILE *fp) { JOBIO_FGETS(REAL(fgets)(b, n, fp)) }
JOBIO_EXPORT char *fgets_unlocked(char *b, int n, FILE *fp) { JOBIO_FGETS(REAL(fgets_unlocked)(b, n, fp)) }
JOBIO_EXPORT char *__fgets_chk(char *b, size_t len, int n, FILE *fp) { JOBIO_FGETS(REAL(__fgets_chk)(b, len, n, fp)) }

#define JOBIO_GETLINE(call_expr)        \
  JOBIO_SC_CALL(ssize_t, fp, call_expr, \
                jobio_sc_read(&s, JOBIO_STDIO_GETLINE, r > 0 ? r : 0, r > 0 ? (uint64_t)r : 0, 0, 0))
JOBIO_EXPORT ssize_t getline(char **l, size_t *n, FILE *fp) { JOBIO_GETLINE(REAL(getline)(l, n, fp)) }
JOBIO_EXPORT ssize_t getdelim(char **l, size_t *n, int d, FILE *fp) { JOBIO_GETLINE(REAL(getdelim)(l, n, d, fp)) }
JOBIO_EXPORT ssize_t __getdelim(char **l, size_t *n, int d, FILE *fp) { JOBIO_GETLINE(REAL(__getdelim)(l, n, d, fp)) }

/* fn < 0: not an application call (__uflow: a buffer refill of an inlined getc_unlocked) */
#define JOBIO_GETC(fn, fpv, call_expr) \
  JOBIO_SC_CALL(int, fpv, call_expr, jobio_sc_read(&s, fn, r != EOF, r != EOF, 0, 0))
JOBIO_EXPORT int fgetc(FILE *fp) { JOBIO_GETC(JOBIO_STDIO_FGETC, fp, REAL(fgetc)(fp)) }
JOBIO_EXPORT int getc(FILE *fp) { JOBIO_GETC(JOBIO_STDIO_FGETC, fp, REAL(getc)(fp)) }
JOBIO_EXPORT int getchar(void) { JOBIO_GETC(JOBIO_STDIO_FGETC, stdin, REAL(getchar)()) }
JOBIO_EXPORT int fgetc_unlocked(FILE *fp) { JOBIO_GETC(JOBIO_STDIO_FGETC, fp, REAL(fgetc_unlocked)(fp)) }
JOBIO_EXPORT int getc_unlocked(FILE *fp) { JOBIO_GETC(JOBIO_STDIO_FGETC, fp, REAL(getc_unlocked)(fp)) }
JOBIO_EXPORT int __uflow(FILE *fp) { JOBIO_GETC(-1, fp, REAL(__uflow)(fp)) }

JOBIO_EXPORT int ungetc(int ch, FILE *fp) {
  JOBIO_SC_CALL(int, fp, REAL(ungetc)(ch, fp), jobio_sc_read(&s, JOBIO_STDIO_UNGETC, r != EOF ? -1 : 0, 0, 0, 0))
}

/* fscanf & co.: the bytes consumed are not known (one refill at most is assumed) */
static inline int jobio_vscanf_common(FILE *fp, int isoc99, const char *fmt, va_list ap) {
  struct jobio_sc s;
  int counted = jobio_sc_begin(&s, fp);
  int r = (isoc99 ? REAL(__isoc99_vfscanf) : REAL(vfscanf))(fp, fmt, ap);
  if (counted) jobio_sc_read(&s, JOBIO_STDIO_FSCANF, JOBIO_CONSUMED_UNKNOWN, 0, 0, 0);
  return r;
}
/* (stdio.h renames fscanf, scanf and vfscanf to their __isoc99_ versions in C11: the plain
 * symbols get their names from asm labels) */
JOBIO_EXPORT int jobio_w_fscanf(FILE *fp, const char *fmt, ...) __asm__("fscanf");
JOBIO_EXPORT int jobio_w_scanf(const char *fmt, ...) __asm__("scanf");
JOBIO_EXPORT int jobio_w_vfscanf(FILE *fp, const char *fmt, va_list ap) __asm__("vfscanf");
JOBIO_EXPORT int jobio_w_fscanf(FILE *fp, const char *fmt, ...) { JOBIO_VA_CALL(jobio_vscanf_common(fp, 0, fmt, ap)) }
JOBIO_EXPORT int __isoc99_fscanf(FILE *fp, const char *fmt, ...) { JOBIO_VA_CALL(jobio_vscanf_common(fp, 1, fmt, ap)) }
JOBIO_EXPORT int jobio_w_scanf(const char *fmt, ...) { JOBIO_VA_CALL(jobio_vscanf_common(stdin, 0, fmt, ap)) }
JOBIO_EXPORT int __isoc99_scanf(const char *fmt, ...) { JOBIO_VA_CALL(jobio_vscanf_common(stdin, 1, fmt, ap)) }
JOBIO_EXPORT int jobio_w_vfscanf(FILE *fp, const char *fmt, va_list ap) { return jobio_vscanf_common(fp, 0, fmt, ap); }
JOBIO_EXPORT int __isoc99_vfscanf(FILE *fp, const char *fmt, va_list ap) { return jobio_vscanf_common(fp, 1, fmt, ap); }

/* ---------------- writing ---------------- */
#define JOBIO_FWRITE(call_expr) \
  JOBIO_SC_CALL(size_t, fp, call_expr, jobio_sc_write(&s, JOBIO_STDIO_FWRITE, (r * size), 1))
JOBIO_EXPORT size_t fwrite(const void *p, size_t size, size_t n, FILE *fp) { JOBIO_FWRITE(REAL(fwrite)(p, size, n, fp)) }
JOBIO_EXPORT size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *fp) {
  JOBIO_FWRITE(REAL(fwrite_unlocked)(p, size, n, fp))
}

/* printf family: r characters written (negative: error) */
static inline int jobio_vprintf_common(FILE *fp, int chk, int flag, const char *fmt, va_list ap) {
  struct jobio_sc s;
  int counted = jobio_sc_begin(&s, fp);
  int r = chk ? REAL(__vfprintf_chk)(fp, flag, fmt, ap) : REAL(vfprintf)(fp, fmt, ap);
  if (counted) jobio_sc_write(&s, JOBIO_STDIO_FPRINTF, r > 0 ? (uint64_t)r : 0, 0);
  return r;
}
JOBIO_EXPORT int vfprintf(FILE *fp, const char *fmt, va_list ap) { return jobio_vprintf_common(fp, 0, 0, fmt, ap); }
JOBIO_EXPORT int vprintf(const char *fmt, va_list ap) { return jobio_vprintf_common(stdout, 0, 0, fmt, ap); }
JOBIO_EXPORT int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap) {
  return jobio_vprintf_common(fp, 1, flag, fmt, ap);
}
JOBIO_EXPORT int __vprintf_chk(int flag, const char *fmt, va_list ap) {
  return jobio_vprintf_common(stdout, 1, flag, fmt, ap);
}
#define JOBIO_PRINTF(fpv, chk, flag) JOBIO_VA_CALL(jobio_vprintf_common((fpv), (chk), (flag), fmt, ap))
JOBIO_EXPORT int fprintf(FILE *fp, const char *fmt, ...) { JOBIO_PRINTF(fp, 0, 0) }
JOBIO_EXPORT int printf(const char *fmt, ...) { JOBIO_PRINTF(stdout, 0, 0) }
JOBIO_EXPORT int __fprintf_chk(FILE *fp, int flag, const char *fmt, ...) { JOBIO_PRINTF(fp, 1, flag) }
JOBIO_EXPORT int __printf_chk(int flag, const char *fmt, ...) { JOBIO_PRINTF(stdout, 1, flag) }

/*
 * dprintf: glibc prints through a stream of its own on the descriptor (vdprintf): it fstats the
 * descriptor to size the stream's buffer, asks the kernel where the descriptor is (the position
 * query of _IO_file_attach: a zero seek), prints, and writes what it printed: one write when that
 * fits the buffer (st_blksize), in whole blocks and the rest otherwise. The writes move the
 * descriptor's offset like write's.
 */
static int jobio_vdprintf_common(int fd, int chk, int flag, const char *fmt, va_list ap) {
  struct jobio_ctx c;
  int counted = jobio_begin_notime(&c) && (unsigned)fd < jobio_fd_cap;
  if (counted && jobio_fds[fd].kind == JOBIO_FD_UNKNOWN) jobio_fd_learn(fd);
  if (counted && jobio_fds[fd].kind != JOBIO_FD_FILE) counted = 0;
  if (counted) jobio_start(&c);
  int r = chk ? REAL(__vdprintf_chk)(fd, flag, fmt, ap) : REAL(vdprintf)(fd, fmt, ap);
  if (!counted) return r;
  uint64_t est;
  uint64_t t1 = jobio_stop(&c, &est);
  int saved = errno;
  struct jobio_fs_ops o = {&c, fd, c.t0 != 0, est, 0};
  jobio_fs_fstat(&o);
  jobio_fs_seek(&o, 0, 0, 0, 0, 0);
  if (r < 0 && saved != EOVERFLOW && saved != EILSEQ) { /* (those fail before any write) */
    jobio_rec_xfer_est(&c, fd, JOBIO_DIR_WRITE, -1, 0, 0, 0, 1);
  } else if (r > 0) {
    uint64_t bs = 0, left = (uint64_t)r;
    struct stat st;
    if (left > 4096 && jobio_sys_fstat(fd, &st) == 0 && st.st_blksize > 0) bs = (uint64_t)st.st_blksize;
    if (bs && left > bs) {
      /* (a long print: whole blocks as they fill, the rest at the end) */
      jobio_rec_xfer_est(&c, fd, JOBIO_DIR_WRITE, (int64_t)(left - left % bs), 0, 0, 0, 1);
      left %= bs;
    }
    if (left) jobio_rec_xfer_est(&c, fd, JOBIO_DIR_WRITE, (int64_t)left, 0, 0, 0, 1);
  }
  errno = saved;
  jobio_after(t1);
  return r;
}
JOBIO_EXPORT int vdprintf(int fd, const char *fmt, va_list ap) { return jobio_vdprintf_common(fd, 0, 0, fmt, ap); }
JOBIO_EXPORT int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap) {
  return jobio_vdprintf_common(fd, 1, flag, fmt, ap);
}
JOBIO_EXPORT int dprintf(int fd, const char *fmt, ...) { JOBIO_VA_CALL(jobio_vdprintf_common(fd, 0, 0, fmt, ap)) }
JOBIO_EXPORT int __dprintf_chk(int fd, int flag, const char *fmt, ...) { JOBIO_VA_CALL(jobio_vdprintf_common(fd, 1, flag, fmt, ap)) }

/* fputs/puts: the string's length (puts adds its newline) */
#define JOBIO_FPUTS(fpv, extra, call_expr) \
  JOBIO_SC_CALL(int, fpv, call_expr,       \
                jobio_sc_write(&s, JOBIO_STDIO_FPUTS, r >= 0 ? strlen(str) + (extra) : 0, !(extra)))
JOBIO_EXPORT int fputs(const char *str, FILE *fp) { JOBIO_FPUTS(fp, 0, REAL(fputs)(str, fp)) }
JOBIO_EXPORT int fputs_unlocked(const char *str, FILE *fp) { JOBIO_FPUTS(fp, 0, REAL(fputs_unlocked)(str, fp)) }
JOBIO_EXPORT int puts(const char *str) { JOBIO_FPUTS(stdout, 1, REAL(puts)(str)) }

/* fn < 0: not an application call (__overflow: a flush of an inlined putc_unlocked) */
#define JOBIO_PUTC(fn, fpv, accepted, call_expr) \
  JOBIO_SC_CALL(int, fpv, call_expr, jobio_sc_write(&s, fn, r != EOF ? (accepted) : 0, 0))
JOBIO_EXPORT int fputc(int ch, FILE *fp) { JOBIO_PUTC(JOBIO_STDIO_FPUTC, fp, 1, REAL(fputc)(ch, fp)) }
JOBIO_EXPORT int putc(int ch, FILE *fp) { JOBIO_PUTC(JOBIO_STDIO_FPUTC, fp, 1, REAL(putc)(ch, fp)) }
JOBIO_EXPORT int putchar(int ch) { JOBIO_PUTC(JOBIO_STDIO_FPUTC, stdout, 1, REAL(putchar)(ch)) }
JOBIO_EXPORT int fputc_unlocked(int ch, FILE *fp) { JOBIO_PUTC(JOBIO_STDIO_FPUTC, fp, 1, REAL(fputc_unlocked)(ch, fp)) }
JOBIO_EXPORT int putc_unlocked(int ch, FILE *fp) { JOBIO_PUTC(JOBIO_STDIO_FPUTC, fp, 1, REAL(putc_unlocked)(ch, fp)) }
JOBIO_EXPORT int __overflow(FILE *fp, int ch) { JOBIO_PUTC(-1, fp, ch != EOF, REAL(__overflow)(fp, ch)) }

/* ---------------- flushes and seeks ---------------- */
/* fflush(NULL) flushes every stream: the ones seen so far are looked at (at most 64 with data). */
static int jobio_fflush_all(int unlocked) {
  struct jobio_ctx c;
  FILE **t = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  if (!t || !jobio_begin(&c)) return unlocked ? REAL(fflush_unlocked)(NULL) : REAL(fflush)(NULL);
  struct {
    int fd;
    struct jobio_fst s0;
  } seen[64];
  int n = 0;
  uint32_t hwm = jobio_fd_hwm();
  if (hwm > jobio_fd_cap) hwm = jobio_fd_cap;
  for (uint32_t fd = 0; fd < hwm && n < 64; fd++) {
    FILE *fp = t[fd];
    if (!fp || jobio_fds[fd].kind != JOBIO_FD_FILE || fileno_unlocked(fp) != (int)fd) continue;
    seen[n].fd = (int)fd;
    jobio_fst_take(fp, &seen[n].s0);
    if (seen[n].s0.wptr > seen[n].s0.wbase) n++;
  }
  int r = unlocked ? REAL(fflush_unlocked)(NULL) : REAL(fflush)(NULL);
  uint64_t est;
  uint64_t t1 = jobio_stop(&c, &est);
  int saved = errno;
  struct jobio_fs_ops o = {&c, 0, c.t0 != 0, est, 0};
  for (int i = 0; i < n; i++) {
    o.fd = seen[i].fd;
    jobio_fs_flush(&o, &seen[i].s0);
  }
  errno = saved;
  jobio_after(t1);
  return r;
}

/* (the bytes it flushed: what was pending before it, s.s0) */
#define JOBIO_FFLUSH(unlocked, call_expr)                                                                              \
  if (!fp) return jobio_fflush_all(unlocked);                                                                          \
  JOBIO_SC_CALL(int, fp, call_expr, uint64_t before = s.s0.wptr > s.s0.wbase ? (uint64_t)(s.s0.wptr - s.s0.wbase) : 0; \
                jobio_sc_write(&s, JOBIO_STDIO_FFLUSH, 0, 0);                                                          \
                jobio_ms(s.c.t->block, (unsigned)s.slot)->ext.stdio_bytes[JOBIO_STDIO_FFLUSH] += r == 0 ? before : 0)
JOBIO_EXPORT int fflush(FILE *fp) { JOBIO_FFLUSH(0, REAL(fflush)(fp)) }
JOBIO_EXPORT int fflush_unlocked(FILE *fp) { JOBIO_FFLUSH(1, REAL(fflush_unlocked)(fp)) }

/*
 * Seeks and position queries. glibc keeps the kernel's offset of a stream in FILE._offset (public
 * ABI; -1 when it does not know it), so the lseek it makes inside is deduced like the buffer
 * traffic (_IO_new_file_seekoff, do_ftell):
 *   - fseek flushes what is pending (a write), fstats the file for SEEK_END, then always makes one
 *     lseek: to the offset it already is at when the target is inside the buffer (glibc resyncs
 *     the kernel: a zero seek), else to the target's block, which it then reads (one read). Its
 *     class needs the offset before: when glibc does not know it, the kernel is asked first. When
 *     that read ends before the target (the target is past the end of the file), glibc seeks the
 *     rest (lseek(fd, rest, SEEK_CUR)) and leaves the buffer empty: the bytes the read got are the
 *     file's size past the block start, asked with an fstat of the profiler's own;
 *   - ftell asks the kernel (lseek(fd, 0, SEEK_CUR), a zero seek) when _offset is not known, or
 *     seeks to the end when an append stream has bytes pending; otherwise it makes no system call.
 */
static inline int64_t jobio_fp_off(FILE *fp) { return (int64_t)fp->_offset; }
#define JOBIO_IO_NO_READS 0x0004     /* glibc's FILE flags (libio.h) */
#define JOBIO_IO_IS_APPENDING 0x1000
static uint64_t jobio_sc_pending(const struct jobio_fst *s) { return s->wptr > s->wbase ? (uint64_t)(s->wptr - s->wbase) : 0; }

/*
 * Did fseek's block read end before the target (glibc's "count < delta")? Then the buffer is left
 * empty at the target, which is not on a block boundary (on one, glibc reads nothing). Not on the
 * paths that make one lseek and no read: a stream that does not read, SEEK_CUR with the offset
 * unknown, SEEK_END of a file that is not regular. *start: the block's start; *got: what the read
 * got (the file's size past the start, from an fstat of the profiler's own).
 */
static int jobio_sc_short_block(const struct jobio_sc *s, const struct jobio_fst *s1, int whence, int64_t target,
                                int64_t *start, int64_t *got) {
  int64_t bs = s1->bufe > s1->bufb ? s1->bufe - s1->bufb : 0;
  if (target <= 0 || bs <= 0 || s->fd < 0 || (s->s0.flags & JOBIO_IO_NO_READS)) return 0;
  if (s1->rptr != s1->bufb || s1->rend != s1->bufb || s1->rbase != s1->bufb) return 0;
  if (whence == SEEK_CUR && s->off0 < 0) return 0;
  int64_t block = target & ~(bs - 1), delta = target - block;
  if (delta <= 0 || delta > bs) return 0;
  struct stat st;
  int saved = errno;
  jobio_guard_enter();
  long ok = jobio_sys_fstat(s->fd, &st);
  jobio_guard_leave();
  errno = saved;
  if (ok != 0 || !S_ISREG(st.st_mode)) return 0;
  int64_t size = (int64_t)st.st_size;
  *start = block;
  *got = size > block ? size - block : 0;
  return *got < delta;
}

/* r: fseek's result (0 or -1) */
static void jobio_sc_seek(struct jobio_sc *s, int whence, int r) {
  struct jobio_sc_after a;
  int saved;
  int64_t off1 = jobio_fp_off(s->fp);
  uint64_t t1 = jobio_sc_stop(s, &a, &saved);
  uint64_t flushed = jobio_sc_pending(&s->s0);
  jobio_fs_flush(&a.o, &s->s0);
  if (whence == SEEK_END) jobio_fs_fstat(&a.o);
  /* (a block read: glibc's offset moved and the buffer holds bytes; the buffer's pointers may be
   * the same as before, a block of the same length in the same place) */
  int refilled = a.s1.rend > a.s1.rbase && (off1 != s->off0 || a.s1.rend != s->s0.rend || a.s1.rbase != s->s0.rbase);
  int64_t before = s->kern0 >= 0 ? s->kern0 + (int64_t)flushed : -1;
  int64_t count = refilled ? a.s1.rend - a.s1.bufb : 0; /* the block read after the seek */
  /* what that read asked for (_IO_new_file_seekoff): a buffer, or only up to the target when the
   * stream held nothing to read or write at the call (then it got all it asked, or fell short below) */
  int exact = s->s0.rbase == s->s0.rend && s->s0.wbase == s->s0.wptr;
  uint64_t bs = a.s1.bufe > a.s1.bufb ? (uint64_t)(a.s1.bufe - a.s1.bufb) : 0;
  int64_t start, got;
  if (r == 0 && !refilled && jobio_sc_short_block(s, &a.s1, whence, off1, &start, &got))
    jobio_fs_seek_short(&a.o, before, start, got, exact ? (uint64_t)(off1 - start) : bs, off1);
  else
    jobio_fs_seek(&a.o, before, off1 >= 0 ? off1 - count : -1, r == 0 ? 0 : saved, count, exact ? (uint64_t)count : bs);
  jobio_sc_end(saved, t1);
}
#define JOBIO_FSEEK(whence, call_expr) \
  JOBIO_WRAP_BODY(struct jobio_sc s, jobio_sc_begin_at(&s, fp, 2), int, call_expr, jobio_sc_seek(&s, (whence), r))
JOBIO_EXPORT int fseek(FILE *fp, long off, int whence) { JOBIO_FSEEK(whence, REAL(fseek)(fp, off, whence)) }
JOBIO_EXPORT int fseeko(FILE *fp, off_t off, int whence) { JOBIO_FSEEK(whence, REAL(fseeko)(fp, off, whence)) }
JOBIO_EXPORT int fseeko64(FILE *fp, off64_t off, int whence) { JOBIO_FSEEK(whence, REAL(fseeko64)(fp, off, whence)) }
JOBIO_EXPORT int fsetpos(FILE *fp, const fpos_t *pos) { JOBIO_FSEEK(SEEK_SET, REAL(fsetpos)(fp, pos)) }
JOBIO_EXPORT int fsetpos64(FILE *fp, const fpos64_t *pos) { JOBIO_FSEEK(SEEK_SET, REAL(fsetpos64)(fp, pos)) }
JOBIO_EXPORT void rewind(FILE *fp) {
  struct jobio_sc s;
  if (!jobio_sc_begin_at(&s, fp, 2)) {
    REAL(rewind)(fp);
    return;
  }
  REAL(rewind)(fp);
  jobio_sc_seek(&s, SEEK_SET, 0); /* (rewind reports no failure) */
}

/* failed: the position query returned an error (errno says why) */
static void jobio_sc_tell(struct jobio_sc *s, int failed) {
  struct jobio_sc_after a;
  int saved;
  int64_t off1 = jobio_fp_off(s->fp);
  uint64_t t1 = jobio_sc_stop(s, &a, &saved);
  int to_end = (s->s0.flags & JOBIO_IO_IS_APPENDING) && s->s0.bufb && jobio_sc_pending(&s->s0);
  if (to_end)
    jobio_fs_seek(&a.o, -1, off1, failed ? saved : 0, 0, 0);
  else if (s->off0 < 0 && s->fd >= 0)
    jobio_fs_seek(&a.o, 0, 0, failed ? saved : 0, 0, 0); /* lseek(fd, 0, SEEK_CUR): where it already is */
  jobio_sc_end(saved, t1);
}
#define JOBIO_FTELL(type, call_expr) \
  JOBIO_WRAP_BODY(struct jobio_sc s, jobio_sc_begin_at(&s, fp, 1), type, call_expr, jobio_sc_tell(&s, r < 0))
JOBIO_EXPORT long ftell(FILE *fp) { JOBIO_FTELL(long, REAL(ftell)(fp)) }
JOBIO_EXPORT off_t ftello(FILE *fp) { JOBIO_FTELL(off_t, REAL(ftello)(fp)) }
JOBIO_EXPORT off64_t ftello64(FILE *fp) { JOBIO_FTELL(off64_t, REAL(ftello64)(fp)) }
JOBIO_EXPORT int fgetpos(FILE *fp, fpos_t *pos) { JOBIO_FTELL(int, REAL(fgetpos)(fp, pos)) }
JOBIO_EXPORT int fgetpos64(FILE *fp, fpos64_t *pos) { JOBIO_FTELL(int, REAL(fgetpos64)(fp, pos)) }

/* ---------------- exit: glibc flushes every stream after our destructor ---------------- */
void jobio_stdio_exit(struct jobio_block *b) {
  FILE **t = __atomic_load_n(&jobio_files, __ATOMIC_ACQUIRE);
  struct jobio_tls *tl = &jobio_t;
  if (!b || tl->block != b) return;
  struct jobio_ctx c = {tl, 0, 0};
  FILE *std[2] = {stdout, stderr};
  uint32_t hwm = jobio_fd_hwm();
  if (hwm > jobio_fd_cap) hwm = jobio_fd_cap;
  for (uint32_t fd = 0; fd < hwm; fd++) {
    FILE *fp = t ? t[fd] : NULL;
    for (int i = 0; !fp && i < 2; i++)
      if (std[i] && fileno_unlocked(std[i]) == (int)fd) fp = std[i];
    if (!fp || fileno_unlocked(fp) != (int)fd || jobio_fds[fd].kind != JOBIO_FD_FILE) continue;
    jobio_flush_before(&c, fp, (int)fd);
  }
}
