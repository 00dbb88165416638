/* Out-of-line record functions (record.c) used by the wrapper files. */
#ifndef JOBIO_RECORD_H
#define JOBIO_RECORD_H
#include "jobio.h"

void jobio_rec_xfer_est(struct jobio_ctx *c, int fd, int dir, int64_t r, uint64_t est, int timed, int moves_pos);
void jobio_rec_fd(struct jobio_ctx *c, int fd, int call, int cls);
void jobio_rec_path(struct jobio_ctx *c, int dirfd, const char *path, int call, int cls);
void jobio_rec_stat_ok(struct jobio_ctx *c, int dirfd, const char *path, int have_dev, uint64_t dev, mode_t mode);
int jobio_open_creates(int dirfd, const char *path, int flags);
void jobio_rec_open(struct jobio_ctx *c, int dirfd, const char *path, int flags, int creates, int fd, uint8_t fdflags);
int jobio_close_pre(int fd);
void jobio_rec_close(struct jobio_ctx *c, int fd, int slot, int r);
void jobio_rec_close_range(struct jobio_ctx *c, unsigned lo, unsigned hi, int r, int cloexec_only);
void jobio_rec_alias(struct jobio_ctx *c, int oldfd, int newfd);
int64_t jobio_seek_pre(int fd, int whence);
void jobio_rec_seek(struct jobio_ctx *c, int fd, int64_t off, int whence, int64_t before, int64_t r);

/* The body of a wrapper whose call is recorded after it returns: with `state` declared, forward at
 * once (a tail call) unless `begin` says this call is counted; else make the call, then run the
 * statements given after call_expr, which record what it did (they see its result r). */
#define JOBIO_WRAP_BODY(state, begin, type, call_expr, ...) \
  state;                                                    \
  if (!(begin)) return call_expr;                           \
  type r = call_expr;                                       \
  __VA_ARGS__;                                              \
  return r;
/* The same with a context c from jobio_begin (timed) or jobio_begin_notime. */
#define JOBIO_CTX_CALL(begin, type, call_expr, ...) \
  JOBIO_WRAP_BODY(struct jobio_ctx c, begin(&c), type, call_expr, __VA_ARGS__)

/* the mode argument of open-like calls is only there with O_CREAT or O_TMPFILE */
static inline int jobio_needs_mode(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }
static inline int jobio_fail_cls(long r) { return r < 0 ? JOBIO_RED : JOBIO_YELLOW; }
#endif
