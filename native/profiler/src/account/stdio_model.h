/* The file-system level of stdio calls, deduced from the stream's buffer (stdio_model.c). */
#ifndef JOBIO_STDIO_MODEL_H
#define JOBIO_STDIO_MODEL_H
#include "account/count.h"
#include "base/common.h"

#pragma GCC visibility push(hidden)

/* A stream's buffer state. */
struct jobio_fst {
  int flags;
  char *rptr, *rend, *rbase, *wbase, *wptr, *wend, *bufb, *bufe;
};
void jobio_fst_take(FILE *f, struct jobio_fst *s);

/* Where the deduced system calls are counted. */
struct jobio_fs_ops {
  struct jobio_ctx *c;
  int fd;
  int timed;    /* the first deduced call carries the stdio call's duration estimate */
  uint64_t est;
  unsigned ops; /* deduced system calls so far */
};

#define JOBIO_CONSUMED_UNKNOWN INT64_MIN
/* consumed: bytes the call gave the program (negative: pushed back; JOBIO_CONSUMED_UNKNOWN: not
 * known, then at least min_consumed); fread_want: the bytes an fread asked for (0 for other calls) */
void jobio_fs_reads(struct jobio_fs_ops *o, const struct jobio_fst *s0, const struct jobio_fst *s1, int64_t consumed,
                    uint64_t fread_want, uint64_t min_consumed);
/* accepted: bytes the call took from the program; xsputn: fwrite/fputs (large requests are written
 * directly in whole blocks) */
void jobio_fs_writes(struct jobio_fs_ops *o, const struct jobio_fst *s0, const struct jobio_fst *s1, uint64_t accepted,
                     int xsputn);
void jobio_fs_flush(struct jobio_fs_ops *o, const struct jobio_fst *s0);
/* a seek glibc made (kernel offsets before, < 0 unknown, and after; err: its errno when it failed),
 * and the block it read after it (bytes, 0: none) */
void jobio_fs_seek(struct jobio_fs_ops *o, int64_t before, int64_t target, int err, int64_t block);
/* fseek's block read that met the end of the file before the target: the seek to the block start,
 * the read (count bytes, 0 at the end of the file), and the seek of the rest (SEEK_CUR, forward) */
void jobio_fs_seek_short(struct jobio_fs_ops *o, int64_t before, int64_t block_start, int64_t count, int64_t target);
/* an fstat glibc made of the stream's descriptor */
void jobio_fs_fstat(struct jobio_fs_ops *o);

#pragma GCC visibility pop
#endif
