/*
 * One walk over a path, as written, for everything an open needs from it: the path's hash (the stat
 * rule's key: docs/profiler.md "Classification"), its length, where its directory ends, and the
 * hash of that directory (the thread's last-directory cache of the mount lookup compares it instead
 * of the bytes). An open walked its path three times before (a hash, a strlen, a search for the
 * last '/' and a compare of the directory): now libc's strlen and memrchr, then one pass of the
 * hash, eight bytes a round.
 */
#ifndef JOBIO_PATHWALK_H
#define JOBIO_PATHWALK_H
#include <string.h>

#include "base/common.h"

#pragma GCC visibility push(hidden)

#define JOBIO_PW_K 0x9e3779b97f4a7c15ull
#define JOBIO_PW_SEED 0x243f6a8885a308d3ull
#define JOBIO_PW_KLEN 0xc4ceb9fe1a85ec53ull

struct jobio_pathwalk {
  uint64_t hash;    /* of the whole path (never 0), before the directory descriptor is mixed in */
  uint64_t dirhash; /* of path[0, klen) and klen (never 0) */
  uint32_t len;     /* strlen(path) */
  uint32_t klen;    /* up to and with the last '/' (0: none) */
};

/*
 * SQLite's journals by their names (docs/profiler.md "Who the hint is for"): the rollback journal
 * `<database>-journal`, the write-ahead log `<database>-wal` and its index `<database>-shm`. SQLite
 * names them by the database's full path, so the last eight bytes of a path of at least eight (read
 * as one word, which the hash loads anyway) tell them: 0 none, JOBIO_PW_SQLITE_SHM, or
 * JOBIO_PW_SQLITE_SYNCED for the two whose creation SQLite makes durable by syncing their directory.
 */
#define JOBIO_PW_SQLITE_SHM 1u
#define JOBIO_PW_SQLITE_SYNCED 2u
#define JOBIO_PW_WAL 0x6c61772du                  /* "-wal" */
#define JOBIO_PW_SHM 0x6d68732du                  /* "-shm" */
#define JOBIO_PW_JOURNAL 0x6c616e72756f6a2dull    /* "-journal" */
/* A one-word filter of the names, for the hot path: the path's last four bytes ("-wal", "-shm",
 * "rnal"; 0 for a shorter path), read once the walk knows the length, multiplied and shifted to a
 * bit number 0-63; the bits of the three names are set in JOBIO_PW_SQLITE_BITS. A path whose bit is
 * clear is none of them (about 1 path in 20 of the others has its bit set: jobio_pw_sqlite then
 * says). As many instructions as the two tests it replaced. */
#define JOBIO_PW_SQLITE_BITS 0x401000010ull /* bits 4 ("rnal"), 24 ("-wal"), 34 ("-shm") */
JOBIO_HOT uint32_t jobio_pw_last4(const char *path, size_t len) {
  uint32_t w = 0;
  if (JOBIO_LIKELY(len >= 4)) memcpy(&w, path + len - 4, 4);
  return w;
}
JOBIO_HOT unsigned jobio_pw_sqlite_bit(uint32_t last4) { return (last4 * 0x9e3779b1u) >> 26; }
/* Which one (0: none). */
JOBIO_HOT uint32_t jobio_pw_sqlite(uint64_t last8) {
  uint32_t last4 = (uint32_t)(last8 >> 32);
  if (last4 == JOBIO_PW_SHM) return JOBIO_PW_SQLITE_SHM;
  return last4 == JOBIO_PW_WAL || last8 == JOBIO_PW_JOURNAL ? JOBIO_PW_SQLITE_SYNCED : 0;
}

/*
 * The hash: a multiply-rotate round per eight bytes, then the last 0 to 7 bytes as one word
 * multiplied in. The length is known first (libc's strlen), so every load lies inside the string:
 * no zero-byte test and no page check per word.
 */
JOBIO_HOT uint64_t jobio_pw_word(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}
JOBIO_HOT uint64_t jobio_pw_round(uint64_t h, uint64_t w) {
  h = (h ^ w) * JOBIO_PW_K;
  return (h << 29) | (h >> 35);
}
/* The path's last eight bytes as a word (0 when it is shorter). */
JOBIO_HOT uint64_t jobio_pw_last(const char *path, size_t len) { return JOBIO_LIKELY(len >= 8) ? jobio_pw_word(path + len - 8) : 0; }
/* path[8 * (len / 8), len) as a word, the bytes from the end on 0 */
JOBIO_HOT uint64_t jobio_pw_tail(const char *path, size_t len) {
  size_t rem = len & 7;
  if (rem == 0) return 0;
  if (JOBIO_LIKELY(len >= 8)) return jobio_pw_word(path + len - 8) >> (8 * (8 - rem)); /* inside the string */
  uint64_t w = 0;
  for (size_t i = 0; i < rem; i++) w |= (uint64_t)(unsigned char)path[i] << (8 * i);
  return w;
}
JOBIO_HOT uint64_t jobio_pw_final(uint64_t h, uint64_t tail) {
  h = (h ^ tail) * JOBIO_PW_K;
  return h ? h : 1;
}

/* The hash of path[0, len) (the same value as jobio_pathwalk.hash of that string). */
JOBIO_HOT uint64_t jobio_pw_hash_n(const char *path, size_t len) {
  size_t n = len / 8;
  uint64_t h = JOBIO_PW_SEED;
#pragma GCC unroll 2
  for (size_t i = 0; i < n; i++) h = jobio_pw_round(h, jobio_pw_word(path + 8 * i));
  return jobio_pw_final(h, jobio_pw_tail(path, len));
}
/* The path's hash alone (the same value as jobio_pathwalk.hash). */
JOBIO_HOT uint64_t jobio_pw_hash(const char *path) { return jobio_pw_hash_n(path, strlen(path)); }
/* A path relative to a directory descriptor is another file than the same path relative to another
 * one: the descriptor is mixed into its hash. */
JOBIO_HOT uint64_t jobio_pw_at(uint64_t hash, int dirfd, const char *path) {
  if (path[0] != '/' && dirfd != AT_FDCWD) hash ^= ((uint64_t)(unsigned)dirfd + 1) * JOBIO_PW_KLEN;
  return hash ? hash : 1;
}

/* The whole walk: the hash, with the state before the word of the last '/' kept, so the directory's
 * hash is that state, that word up to the '/', and the directory's length. */
JOBIO_HOT void jobio_pw_walk(const char *path, struct jobio_pathwalk *pw) {
  size_t len = strlen(path), n = len / 8;
  const char *slash = memrchr(path, '/', len);
  size_t klen = slash ? (size_t)(slash - path) + 1 : 0;
  size_t kw = klen ? (klen - 1) / 8 : n + 1; /* the word of the last '/' (none: past the end) */
  uint64_t h = JOBIO_PW_SEED, hk = 0, wk = 0;
  size_t i = 0, m = kw < n ? kw : n;
  for (; i < m; i++) h = jobio_pw_round(h, jobio_pw_word(path + 8 * i));
  hk = h; /* (the state before word kw, when kw < n) */
  for (; i < n; i++) h = jobio_pw_round(h, jobio_pw_word(path + 8 * i));
  uint64_t tail = jobio_pw_tail(path, len);
  pw->hash = jobio_pw_final(h, tail);
  pw->len = (uint32_t)len;
  pw->klen = (uint32_t)klen;
  if (!klen) { /* a name in the working directory: the one directory of length 0 */
    pw->dirhash = JOBIO_PW_K;
    return;
  }
  wk = kw < n ? jobio_pw_word(path + 8 * kw) : tail;
  unsigned byte = (unsigned)(klen - 1) & 7;
  uint64_t upto = byte == 7 ? ~0ull : (1ull << (8 * (byte + 1))) - 1;
  uint64_t d = ((hk ^ (wk & upto)) * JOBIO_PW_K) ^ ((uint64_t)klen * JOBIO_PW_KLEN);
  pw->dirhash = d ? d : 1;
}

#pragma GCC visibility pop
#endif /* JOBIO_PATHWALK_H */
