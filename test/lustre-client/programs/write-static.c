/*
 * Writes N zero bytes to PATH in 64 KiB calls. Built with -static in the coverage test: a static
 * program ignores LD_PRELOAD, so only the Lustre client (here: the test's llite stats) sees its writes.
 * Usage: write-static PATH N. Exit status 1 on any error.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  static char buf[65536];
  if (argc != 3) return 1;
  long long left = atoll(argv[2]);
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 1;
  memset(buf, 0, sizeof buf);
  while (left > 0) {
    ssize_t n = write(fd, buf, left < (long long)sizeof buf ? (size_t)left : sizeof buf);
    if (n <= 0) return 1;
    left -= n;
  }
  return close(fd) == 0 ? 0 : 1;
}
