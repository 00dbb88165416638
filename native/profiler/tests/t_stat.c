/* stat family (glibc >= 2.33 symbols) and access. Files a (100 bytes), b, c exist beforehand.
 *   access yellow 11: 5 path stats of a (stat, stat64, lstat, lstat64, access) then a is opened;
 *                     4 on the open descriptor (fstat, fstat64, fstatat AT_EMPTY_PATH, statx AT_EMPTY_PATH);
 *                     2 of c (statx, faccessat) then c is opened
 *   access red 6:    3 failed (stat, statx, access of missing); b stat'ed twice, never opened; a stat'ed after its open
 *   open yellow 1 (a, 10 bytes), open red 1 (c); read red 1; close green 2 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  struct stat st;
  struct stat64 st64;
  struct statx sx;
  CHECK(stat(P("a"), &st) == 0 && st.st_size == 100);
  CHECK(stat64(P("a"), &st64) == 0);
  CHECK(lstat(P("a"), &st) == 0);
  CHECK(lstat64(P("a"), &st64) == 0);
  CHECK(stat(P("missing"), &st) == -1 && errno == ENOENT);
  CHECK(fstatat(AT_FDCWD, P("b"), &st, 0) == 0);
  CHECK(fstatat64(AT_FDCWD, P("b"), &st64, 0) == 0);
  CHECK(statx(AT_FDCWD, P("c"), 0, STATX_ALL, &sx) == 0);
  CHECK(statx(AT_FDCWD, P("missing"), 0, STATX_ALL, &sx) == -1);
  CHECK(access(P("a"), F_OK) == 0);
  CHECK(access(P("missing"), F_OK) == -1);
  CHECK(faccessat(AT_FDCWD, P("c"), R_OK, 0) == 0);
  int fd = open(P("a"), O_RDONLY);
  CHECK(fd >= 0);
  CHECK(fstat(fd, &st) == 0 && fstat64(fd, &st64) == 0);
  CHECK(fstatat(fd, "", &st, AT_EMPTY_PATH) == 0);
  CHECK(statx(fd, "", AT_EMPTY_PATH, STATX_ALL, &sx) == 0);
  CHECK(read(fd, t_buf, 10) == 10 && close(fd) == 0);
  fd = open(P("c"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  CHECK(stat(P("a"), &st) == 0);
  return 0;
}
