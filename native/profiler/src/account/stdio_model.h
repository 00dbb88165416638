/* The file-system level of stdio calls, deduced from the stream's buffer (stdio_model.c). */
#ifndef JOBIO_STDIO_MODEL_H
#define JOBIO_STDIO_MODEL_H
#include <string.h>

#include "account/count.h"
#include "base/common.h"

#pragma GCC visibility push(hidden)

/* glibc's stream flags (libio.h) */
#define JOBIO_IO_UNBUFFERED 0x0002
#define JOBIO_IO_EOF_SEEN 0x0010
#define JOBIO_IO_ERR_SEEN 0x0020
#define JOBIO_IO_IN_BACKUP 0x0100
#define JOBIO_IO_CURRENTLY_PUTTING 0x0800
#define JOBIO_IO_IS_FILEBUF 0x2000

/* A stream's buffer state. */
struct jobio_fst {
  int flags;
  char *rptr, *rend, *rbase, *wbase, *wptr, *wend, *bufb, *bufe;
};
/* (inline: every stdio call takes it before the call. The fields are glibc's FILE's from _flags to
 * _IO_buf_end in their order, so they are copied as one block.) */
_Static_assert(offsetof(FILE, _IO_read_ptr) - offsetof(FILE, _flags) == offsetof(struct jobio_fst, rptr) &&
                   offsetof(FILE, _IO_buf_end) - offsetof(FILE, _flags) == offsetof(struct jobio_fst, bufe) &&
                   sizeof(struct jobio_fst) == offsetof(struct jobio_fst, bufe) + sizeof(char *),
               "struct jobio_fst mirrors FILE from _flags to _IO_buf_end");
static inline void jobio_fst_take(FILE *f, struct jobio_fst *s) {
  memcpy(s, &f->_flags, sizeof *s);
}

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
/*
 * The common cases, inline, on the stream as the call left it (f, still locked): the answer of
 * jobio_fs_writes / jobio_fs_reads is "no system call" and there is no first buffer to size, so
 * neither needs running. A write: every byte went into the buffer the stream was already filling,
 * no new error. A read: the bytes came from the buffer it found (the read pointer moved by what the
 * program got, or at least min_consumed when that is unknown; the buffer's end did not move), no end
 * of file or error flag, nothing pushed back.
 */
static inline int jobio_fs_writes_none(const struct jobio_fst *s0, FILE *f, uint64_t accepted) {
  return s0->bufb && (s0->flags & f->_flags & JOBIO_IO_CURRENTLY_PUTTING) && s0->wbase == f->_IO_write_base &&
         f->_IO_write_ptr >= s0->wptr && (uint64_t)(f->_IO_write_ptr - s0->wptr) == accepted &&
         !(f->_flags & ~s0->flags & JOBIO_IO_ERR_SEEN);
}
static inline int jobio_fs_reads_none(const struct jobio_fst *s0, FILE *f, int64_t consumed, uint64_t min_consumed) {
  if (!s0->bufb || ((s0->flags | f->_flags) & (JOBIO_IO_IN_BACKUP | JOBIO_IO_CURRENTLY_PUTTING | JOBIO_IO_EOF_SEEN | JOBIO_IO_ERR_SEEN)) ||
      s0->rend != f->_IO_read_end || s0->rbase != f->_IO_read_base || f->_IO_read_ptr < s0->rptr || f->_IO_read_ptr > f->_IO_read_end)
    return 0;
  uint64_t moved = (uint64_t)(f->_IO_read_ptr - s0->rptr);
  return consumed != JOBIO_CONSUMED_UNKNOWN ? consumed >= 0 && (uint64_t)consumed == moved : min_consumed <= moved;
}
void jobio_fs_flush(struct jobio_fs_ops *o, const struct jobio_fst *s0);
/* a seek glibc made (kernel offsets before, < 0 unknown, and after; err: its errno when it failed),
 * and the block it read after it (bytes, 0: none; asked: the bytes that read asked for) */
void jobio_fs_seek(struct jobio_fs_ops *o, int64_t before, int64_t target, int err, int64_t block, uint64_t asked);
/* fseek's block read that met the end of the file before the target: the seek to the block start,
 * the read (count bytes of the asked, 0 at the end of the file), and the seek of the rest (SEEK_CUR,
 * forward) */
void jobio_fs_seek_short(struct jobio_fs_ops *o, int64_t before, int64_t block_start, int64_t count, uint64_t asked, int64_t target);
/* an fstat glibc made of the stream's descriptor */
void jobio_fs_fstat(struct jobio_fs_ops *o);

#pragma GCC visibility pop
#endif
