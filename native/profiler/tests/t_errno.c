/* Return values and errno of wrapped calls, printed one per line: the output must be byte-identical
 * with and without the profiler. Also checks that a successful call leaves errno alone. */
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "t_util.h"

#define SHOW(name, expr)                                   \
  do {                                                     \
    errno = 4242;                                          \
    long r_ = (long)(expr);                                \
    printf("%-28s ret=%ld errno=%d\n", name, r_, errno);   \
  } while (0)

int main(int argc, char **argv) {
  t_init(argc, argv);
  struct stat st;
  struct statx sx;
  char b[64];
  int p[2];
  CHECK(pipe(p) == 0);
  SHOW("open missing", open(P("missing"), O_RDONLY));
  SHOW("open create", open(P("f"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  int fd = 3;
  while (fcntl(fd, F_GETFD) == -1 || fd == p[0] || fd == p[1]) fd++;
  SHOW("write ok", write(fd, "hello world", 11));
  SHOW("pwrite ok", pwrite(fd, "HELLO", 5, 0));
  SHOW("lseek set", lseek(fd, 0, SEEK_SET));
  SHOW("read ok", read(fd, b, sizeof b));
  SHOW("read eof", read(fd, b, sizeof b));
  SHOW("read badf", read(12345, b, 1));
  SHOW("write badf", write(-1, b, 1));
  SHOW("lseek pipe", lseek(p[0], 0, SEEK_SET));
  SHOW("lseek einval", lseek(fd, -10, SEEK_SET));
  SHOW("stat ok", stat(P("f"), &st));
  SHOW("stat missing", stat(P("missing"), &st));
  SHOW("lstat missing", lstat(P("missing"), &st));
  SHOW("fstat badf", fstat(-5, &st));
  SHOW("statx missing", statx(AT_FDCWD, P("missing"), 0, STATX_ALL, &sx));
  SHOW("access missing", access(P("missing"), R_OK));
  SHOW("faccessat ok", faccessat(AT_FDCWD, P("f"), R_OK, 0));
  SHOW("unlink missing", unlink(P("missing")));
  SHOW("rename missing", rename(P("missing"), P("x")));
  SHOW("mkdir ok", mkdir(P("d"), 0755));
  SHOW("mkdir exist", mkdir(P("d"), 0755));
  SHOW("rmdir notempty", rmdir(t_dir));
  SHOW("chmod missing", chmod(P("missing"), 0644));
  SHOW("truncate missing", truncate(P("missing"), 1));
  SHOW("ftruncate ok", ftruncate(fd, 3));
  SHOW("fsync ok", fsync(fd));
  SHOW("fsync badf", fsync(-1));
  SHOW("fdatasync pipe", fdatasync(p[0]));
  SHOW("mmap badf", mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 12345, 0) == MAP_FAILED);
  SHOW("mmap einval", mmap(NULL, 0, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED);
  SHOW("dup2 badf", dup2(12345, 20));
  SHOW("dup ok", dup(fd) > 0);
  SHOW("fcntl getfl", fcntl(fd, F_GETFL));
  SHOW("close badf", close(12345));
  SHOW("close_range einval", close_range(10, 5, 0));
  SHOW("copy_file_range badf", copy_file_range(12345, NULL, fd, NULL, 10, 0));
  SHOW("sendfile badf", sendfile(fd, 12345, NULL, 10));
  SHOW("readv badf", readv(12345, NULL, 0));
  SHOW("fopen missing", fopen(P("missing"), "r") == NULL);
  FILE *fp = fopen(P("f"), "r");
  SHOW("fread ok", fread(b, 1, 3, fp));
  SHOW("fwrite on r", fwrite(b, 1, 3, fp));
  SHOW("ferror", ferror(fp));
  SHOW("fclose ok", fclose(fp));
  SHOW("connect badf", connect(12345, NULL, 0));
  SHOW("send badf", send(12345, b, 1, 0));
  SHOW("close ok", close(fd));
  SHOW("unlink ok", unlink(P("f")));
  return 0;
}
