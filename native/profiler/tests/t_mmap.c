/* mmap/mmap64 of a file: green on success, red on failure; anonymous mappings are not counted.
 * File f has 4096 bytes.  mmap green 2, red 1; open red 1 (no read/write), close green 1 */
#include <sys/mman.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int fd = open(P("f"), O_RDONLY);
  CHECK(fd >= 0);
  void *a = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(a != MAP_FAILED && ((char *)a)[0] == 'x');
  void *b = mmap64(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(b != MAP_FAILED);
  CHECK(mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 3) == MAP_FAILED && errno == EINVAL);
  void *c = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(c != MAP_FAILED);
  munmap(a, 4096);
  munmap(b, 4096);
  munmap(c, 1 << 20);
  CHECK(close(fd) == 0);
  return 0;
}
