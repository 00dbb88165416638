/* The legacy stat entry points of binaries linked against glibc < 2.33 (__xstat & co. are only
 * compat symbols now: bound here with .symver). Files a and b exist.
 *   access yellow 8: __xstat, __lxstat, __xstat64, __lxstat64, __fxstatat, __fxstatat64 of a (then
 *                    a is opened), __fxstat and __fxstat64 of the open b; access red 1 (__xstat of missing)
 *   open red 2 (b, a: no bytes); close green 2 */
#include "t_util.h"

#if defined(__x86_64__)
#define V "GLIBC_2.2.5"
#define V4 "GLIBC_2.4"
#elif defined(__aarch64__)
#define V "GLIBC_2.17"
#define V4 "GLIBC_2.17"
#endif
int old_xstat(int, const char *, struct stat *);
int old_lxstat(int, const char *, struct stat *);
int old_xstat64(int, const char *, struct stat64 *);
int old_lxstat64(int, const char *, struct stat64 *);
int old_fxstat(int, int, struct stat *);
int old_fxstat64(int, int, struct stat64 *);
int old_fxstatat(int, int, const char *, struct stat *, int);
int old_fxstatat64(int, int, const char *, struct stat64 *, int);
__asm__(".symver old_xstat,__xstat@" V);
__asm__(".symver old_lxstat,__lxstat@" V);
__asm__(".symver old_xstat64,__xstat64@" V);
__asm__(".symver old_lxstat64,__lxstat64@" V);
__asm__(".symver old_fxstat,__fxstat@" V);
__asm__(".symver old_fxstat64,__fxstat64@" V);
__asm__(".symver old_fxstatat,__fxstatat@" V4);
__asm__(".symver old_fxstatat64,__fxstatat64@" V4);

int main(int argc, char **argv) {
  t_init(argc, argv);
  struct stat st;
  struct stat64 st64;
  int fd = open(P("b"), O_RDONLY);
  CHECK(fd >= 0);
  CHECK(old_fxstat(1, fd, &st) == 0 && old_fxstat64(1, fd, &st64) == 0);
  CHECK(old_xstat(1, P("a"), &st) == 0 && st.st_size == 100);
  CHECK(old_lxstat(1, P("a"), &st) == 0);
  CHECK(old_xstat64(1, P("a"), &st64) == 0);
  CHECK(old_lxstat64(1, P("a"), &st64) == 0);
  CHECK(old_fxstatat(1, AT_FDCWD, P("a"), &st, 0) == 0);
  CHECK(old_fxstatat64(1, AT_FDCWD, P("a"), &st64, 0) == 0);
  CHECK(old_xstat(1, P("missing"), &st) == -1 && errno == ENOENT);
  CHECK(close(fd) == 0);
  fd = open(P("a"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  return 0;
}
