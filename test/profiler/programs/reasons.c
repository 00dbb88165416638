/* Every reason of a red or yellow call, a known number of times, in the directory argv[1]
 * (test/profiler/diagnosis.test.ts checks the diagnosis record against these counts):
 *   small_read 1, small_write 2, failed_not_found 1, failed_permission 1, failed_call 1,
 *   open_nothing_transferred 1, stat_unused 1, backward_seek 1, zero_seek 1,
 *   open_few_bytes 1, open_bytes_unseen 1, stat_used 2, forward_seek 1, sync 1, metadata_change 2 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[8][4096];
#define CHECK(c)                                                                 \
  do {                                                                           \
    if (!(c)) {                                                                  \
      fprintf(stderr, "reasons: line %d: %s (errno %d)\n", __LINE__, #c, errno); \
      exit(99);                                                                  \
    }                                                                            \
  } while (0)

/* Root may read any file. Instead of a child that changes its user (whose profiler connection would
 * then be another user's, refused by jobio run unless it connected before), this process gives up
 * reading past permissions: the effective CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, same uid. */
static int drop_permission_override(void) {
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) return -1;
  data[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
  return (int)syscall(SYS_capset, &header, data);
}

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
  /* failed_permission: a file nobody may read (chmod 0: metadata_change), opened by its owner */
  fd = open(path[3], O_CREAT | O_EXCL | O_WRONLY, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf && close(fd) == 0);
  CHECK(chmod(path[3], 0) == 0);
  if (geteuid() == 0) CHECK(drop_permission_override() == 0);
  CHECK(open(path[3], O_RDONLY) < 0 && errno == EACCES);
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
  /* still alive when the receiver reads /proc/<pid>/exe at the first frame (a process gone by then
   * has no known path), even on a loaded machine */
  usleep(500 * 1000);
  return 0;
}
