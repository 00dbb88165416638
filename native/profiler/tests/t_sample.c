/* Duration sampling and size bins: creates a file of SIZE bytes, then N preads of SIZE bytes from
 * it, each moving exactly SIZE bytes.   t_sample DIR N SIZE */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc == 4);
  long n = atol(argv[2]);
  size_t size = (size_t)atol(argv[3]);
  CHECK(size > 0 && size <= sizeof t_buf);
  int fd = open(P("sample.dat"), O_CREAT | O_EXCL | O_RDWR, 0644);
  CHECK(fd >= 0);
  CHECK(write(fd, t_buf, size) == (ssize_t)size);
  for (long i = 0; i < n; i++) CHECK(pread(fd, t_buf, size, 0) == (ssize_t)size);
  CHECK(close(fd) == 0);
  return 0;
}
