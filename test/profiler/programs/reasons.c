/* Every reason of a red or yellow call, a known number of times, in the directory argv[1]
 * (test/profiler/diagnosis.test.ts checks the diagnosis record against these counts):
 *   small_read 1, small_write 2, failed_not_found 1, failed_permission 1, failed_call 1,
 *   open_nothing_transferred 1, stat_unused 1, backward_seek 1, zero_seek 1,
 *   open_few_bytes 1, open_bytes_unseen 1, stat_used 2, forward_seek 1, sync 1, metadata_change 1 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char path[8][4096];
#define CHECK(c)                                                                 \
  do {                                                                           \
    if (!(c)) {                                                                  \
      fprintf(stderr, "reasons: line %d: %s (errno %d)\n", __LINE__, #c, errno); \
      exit(99);                                                                  \
    }                                                                            \
  } while (0)

int main(int argc, char **argv) {
  CHECK(argc == 2);
  const char *names[] = {"a", "b", "missing", "secret", "mapped", "stated", "never", "renamed"};
  for (int i = 0; i < 8; i++) snprintf(path[i], sizeof path[i], "%s/%s", argv[1], names[i]);
  char buf[64 * 1024];
  memset(buf, 'x', sizeof buf);

  /* a: 64 KiB written (green), one small write of 10 bytes (small_write), fsync (sync), seeks */
  int fd = open(path[0], O_CREAT | O_EXCL | O_RDWR, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
  CHECK(write(fd, buf, 10) == 10);                          /* small_write */
  CHECK(fsync(fd) == 0);                                    /* sync */
  CHECK(lseek(fd, 0, SEEK_SET) == 0);                       /* backward_seek */
  CHECK(lseek(fd, 0, SEEK_CUR) == 0);                       /* zero_seek */
  CHECK(lseek(fd, 100, SEEK_SET) == 100);                   /* forward_seek */
  CHECK(read(fd, buf, 100) == 100);                         /* small_read */
  CHECK(close(fd) == 0);
  /* b: created with 10 bytes: open_few_bytes (its create is yellow), small_write */
  fd = open(path[1], O_CREAT | O_EXCL | O_WRONLY, 0600);
  CHECK(fd >= 0 && write(fd, buf, 10) == 10 && close(fd) == 0);
  /* failed_not_found */
  CHECK(open(path[2], O_RDONLY) < 0 && errno == ENOENT);
  /* failed_permission: a file nobody but its owner may read, opened by another user */
  fd = open(path[3], O_CREAT | O_EXCL | O_WRONLY, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf && close(fd) == 0);
  if (geteuid() == 0) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(98);
      _exit(open(path[3], O_RDONLY) < 0 && errno == EACCES ? 0 : 97);
    }
    int st;
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
  } else {
    CHECK(chmod(path[3], 0) == 0); /* (metadata_change when not root: the test allows it) */
    CHECK(open(path[3], O_RDONLY) < 0 && errno == EACCES);
  }
  /* failed_call: reading a directory (EISDIR); its open moved nothing: open_nothing_transferred */
  fd = open(argv[1], O_RDONLY | O_DIRECTORY);
  CHECK(fd >= 0);
  CHECK(read(fd, buf, 10) < 0 && errno == EISDIR);
  CHECK(close(fd) == 0);
  /* open_bytes_unseen: a file read through a mapping */
  fd = open(path[4], O_CREAT | O_EXCL | O_RDWR, 0600);
  CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);               /* (ftruncate: metadata_change) */
  char *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED && m[0] == 0);
  CHECK(munmap(m, 4096) == 0 && close(fd) == 0);
  /* stat_used: stat then open (the open moves 64 KiB: green); a stat of a file that is open */
  struct stat st;
  CHECK(stat(path[0], &st) == 0);
  fd = open(path[0], O_RDONLY);
  CHECK(fd >= 0);
  CHECK(stat(path[0], &st) == 0);
  CHECK(read(fd, buf, sizeof buf) == (ssize_t)sizeof buf && close(fd) == 0);
  /* stat_unused: a file never opened */
  CHECK(stat(path[1], &st) == 0);
  printf("done\n");
  return 0;
}
