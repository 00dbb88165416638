/*
 * What a stdio call did at the file-system level. glibc's stdio reaches the kernel through internal
 * symbols (__read, __write), which no LD_PRELOAD library can interpose, so the system calls are
 * deduced from the stream's buffer before and after the call (the FILE fields are public glibc ABI):
 *
 *   bytes read from the kernel    = bytes given to the program + buffered after - buffered before
 *   bytes written to the kernel   = pending before + bytes accepted - pending after
 *
 * and split into system calls the way glibc's stdio makes them: a buffer fill reads one buffer
 * (the last one short at the end of the file), fread reads whole blocks straight into a large
 * request (_IO_file_xsgetn), a flush writes the buffer, fwrite/fputs write whole blocks of a large
 * request directly after flushing the buffer (_IO_new_file_xsputn), an unbuffered stream writes
 * each call at once, and the end of file is met by one read that returns 0 (end of file is sticky
 * since glibc 2.28, so that read happens once). Each deduced system call is counted as a read or
 * write of its own size, so a stream's counts equal strace's for regular files (where reads and
 * writes are never short except at the end of the file).
 */
#include <string.h>

#include "account/stdio_model.h"

#include "account/record.h"


static uint64_t jobio_fst_pending(const struct jobio_fst *s) {
  return (s->flags & JOBIO_IO_CURRENTLY_PUTTING) && s->wptr > s->wbase ? (uint64_t)(s->wptr - s->wbase) : 0;
}
static uint64_t jobio_fst_avail(const struct jobio_fst *s) {
  return !(s->flags & JOBIO_IO_CURRENTLY_PUTTING) && s->rend > s->rptr ? (uint64_t)(s->rend - s->rptr) : 0;
}
static uint64_t jobio_fst_bs(const struct jobio_fst *s) { return s->bufe > s->bufb ? (uint64_t)(s->bufe - s->bufb) : 0; }

/* One deduced system call that asked for `want` bytes (a read's: fewer met the end of the file; 0:
 * not known, and for writes): the first one of a timed call carries the call's duration. */
static void jobio_fs_op_want(struct jobio_fs_ops *o, int dir, int64_t n, uint64_t want) {
  jobio_rec_xfer_est(o->c, o->fd, dir, n, want, o->est, o->timed, 0);
  o->timed = 0;
  o->est = 0;
  o->ops++;
}
static void jobio_fs_op(struct jobio_fs_ops *o, int dir, int64_t n) { jobio_fs_op_want(o, dir, n, 0); }

/* n bytes moved by buffer-sized system calls (the last one shorter: a read's, a buffer fill that
 * met the end of the file). */
static void jobio_fs_chunks(struct jobio_fs_ops *o, int dir, uint64_t n, uint64_t bs) {
  if (!bs) bs = n;
  while (n) {
    uint64_t k = n < bs ? n : bs;
    jobio_fs_op_want(o, dir, (int64_t)k, dir == JOBIO_DIR_READ ? bs : 0);
    n -= k;
  }
}

void jobio_fs_reads(struct jobio_fs_ops *o, const struct jobio_fst *s0, const struct jobio_fst *s1, int64_t consumed,
                    uint64_t fread_want, uint64_t min_consumed) {
  uint64_t bs = jobio_fst_bs(s1);
  int64_t in = 0;
  if (!((s0->flags | s1->flags) & (JOBIO_IO_IN_BACKUP | JOBIO_IO_CURRENTLY_PUTTING))) {
    if (consumed != JOBIO_CONSUMED_UNKNOWN) {
      in = consumed + (int64_t)jobio_fst_avail(s1) - (int64_t)jobio_fst_avail(s0);
    } else if (s1->rend != s0->rend || s1->rbase != s0->rbase || s1->rptr < s0->rptr ||
               min_consumed > (uint64_t)(s1->rptr - s0->rptr)) {
      /* consumed unknown (fscanf; fgets, whose line may hold NUL bytes): a refill happened, and
       * only one can have (the call reads less than a buffer) */
      in = s1->rend > s1->rbase ? s1->rend - s1->rbase : 0;
    }
  }
  if (in > 0) {
    uint64_t left = (uint64_t)in;
    uint64_t a0 = jobio_fst_avail(s0);
    if (fread_want > a0) {
      /* _IO_file_xsgetn: below one buffer, fill the buffer; else read whole blocks directly */
      uint64_t want = fread_want - a0;
      while (want && left) {
        uint64_t got, asked;
        if (bs && want < bs) {
          asked = bs; /* a buffer fill */
          got = left < bs ? left : bs;
          want -= got < want ? got : want;
        } else {
          asked = want - (bs >= 128 ? want % bs : 0); /* whole blocks straight into the request */
          got = left < asked ? left : asked;
          want -= got;
        }
        jobio_fs_op_want(o, JOBIO_DIR_READ, (int64_t)got, asked);
        left -= got;
      }
    }
    jobio_fs_chunks(o, JOBIO_DIR_READ, left, bs);
  }
  /* an fread past a sticky end of file still reads directly when it wants a buffer or more */
  if (fread_want && (s0->flags & JOBIO_IO_EOF_SEEN) && bs && fread_want - (fread_want < jobio_fst_avail(s0) ? fread_want : jobio_fst_avail(s0)) >= bs)
    jobio_fs_op(o, JOBIO_DIR_READ, 0);
  if (!(s0->flags & JOBIO_IO_EOF_SEEN) && (s1->flags & JOBIO_IO_EOF_SEEN)) jobio_fs_op(o, JOBIO_DIR_READ, 0);
  if (!(s0->flags & JOBIO_IO_ERR_SEEN) && (s1->flags & JOBIO_IO_ERR_SEEN) && !(s1->flags & JOBIO_IO_CURRENTLY_PUTTING))
    jobio_fs_op(o, JOBIO_DIR_READ, -1);
}

void jobio_fs_writes(struct jobio_fs_ops *o, const struct jobio_fst *s0, const struct jobio_fst *s1, uint64_t accepted,
                     int xsputn) {
  uint64_t p0 = jobio_fst_pending(s0), p1 = jobio_fst_pending(s1);
  uint64_t bs = jobio_fst_bs(s1);
  int64_t out = (int64_t)(p0 + accepted) - (int64_t)p1;
  if (out > 0) {
    if (s1->flags & JOBIO_IO_UNBUFFERED) {
      jobio_fs_op(o, JOBIO_DIR_WRITE, out); /* each call written at once */
    } else {
      int done = 0;
      if (xsputn) {
        /* _IO_new_file_xsputn: fill the buffer, flush it, write whole blocks, keep the rest */
        uint64_t space = (s0->flags & JOBIO_IO_CURRENTLY_PUTTING) && s0->wend > s0->wptr ? (uint64_t)(s0->wend - s0->wptr) : 0;
        uint64_t fill = space < accepted ? space : accepted;
        uint64_t to_do = accepted - fill, flush = p0 + fill;
        uint64_t direct = to_do - (bs >= 128 ? to_do % bs : 0);
        if (to_do && flush + direct == (uint64_t)out) {
          if (flush) jobio_fs_op(o, JOBIO_DIR_WRITE, (int64_t)flush);
          if (direct) jobio_fs_op(o, JOBIO_DIR_WRITE, (int64_t)direct);
          done = 1;
        }
      }
      if (!done) jobio_fs_chunks(o, JOBIO_DIR_WRITE, (uint64_t)out, bs); /* full buffers flushed */
    }
  }
  if (!(s0->flags & JOBIO_IO_ERR_SEEN) && (s1->flags & JOBIO_IO_ERR_SEEN) && (s1->flags & JOBIO_IO_CURRENTLY_PUTTING))
    jobio_fs_op(o, JOBIO_DIR_WRITE, -1);
}

/* A seek glibc made for the stream (fseek, ftell): classified as lseek's (jobio_rec_seek), from the
 * kernel offsets before (< 0: not known) and after it; err: it failed. block: the bytes of the
 * block fseek then read (0: none), of the `asked` it asked for. */
void jobio_fs_seek(struct jobio_fs_ops *o, int64_t before, int64_t target, int err, int64_t block, uint64_t asked) {
  int cls, reason = -1;
  if (err) {
    cls = JOBIO_RED;
    reason = jobio_fail_reason(err);
  } else if (before >= 0 ? target > before : target > 0) {
    cls = JOBIO_YELLOW;
  } else {
    cls = JOBIO_RED; /* (with the offset before unknown, a seek to 0 is taken as backward, as lseek's) */
    reason = before >= 0 && target == before ? JOBIO_REASON_ZERO_SEEK : JOBIO_REASON_BACKWARD_SEEK;
  }
  if ((unsigned)o->fd < jobio_fd_cap && jobio_fds[o->fd].kind == JOBIO_FD_FILE)
    jobio_count_reason(jobio_ms(o->c->t->block, jobio_fds[o->fd].slot), JOBIO_CALL_SEEK, cls, reason, o->est, o->timed);
  o->timed = 0;
  o->est = 0;
  o->ops++;
  if (block > 0) jobio_fs_op_want(o, JOBIO_DIR_READ, block, asked);
}

/* _IO_new_file_seekoff read the target's block (after a seek to its start) and got fewer bytes than
 * the target's distance into it: it seeks the rest from where the read left the kernel (dumb:). */
void jobio_fs_seek_short(struct jobio_fs_ops *o, int64_t before, int64_t block_start, int64_t count, uint64_t asked, int64_t target) {
  jobio_fs_seek(o, before, block_start, 0, 0, 0);
  jobio_fs_op_want(o, JOBIO_DIR_READ, count, asked);
  jobio_fs_seek(o, block_start + count, target, 0, 0, 0);
}

/* The fstat glibc makes of the stream's descriptor (fseek to the end): a stat of an open file. */
void jobio_fs_fstat(struct jobio_fs_ops *o) {
  if ((unsigned)o->fd < jobio_fd_cap && jobio_fds[o->fd].kind == JOBIO_FD_FILE)
    jobio_count_reason(jobio_ms(o->c->t->block, jobio_fds[o->fd].slot), JOBIO_CALL_ACCESS, JOBIO_YELLOW, -1, o->est, o->timed);
  o->timed = 0;
  o->est = 0;
  o->ops++;
}

/* An explicit flush (fflush, fclose, fseek, exit): the pending bytes in one write. */
void jobio_fs_flush(struct jobio_fs_ops *o, const struct jobio_fst *s0) {
  uint64_t p0 = jobio_fst_pending(s0);
  if (p0) jobio_fs_op(o, JOBIO_DIR_WRITE, (int64_t)p0);
}
