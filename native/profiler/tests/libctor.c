/* A second preloaded library whose constructor does I/O: creates $CTOR_FILE and writes 3 x 100
 * bytes. Its constructor runs before libjobio's (see the test): the wrappers must already count. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void ctor_io(void) {
  const char *path = getenv("CTOR_FILE");
  if (!path) return;
  char buf[100];
  memset(buf, 'c', sizeof buf);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  if (fd < 0) return;
  for (int i = 0; i < 3; i++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) break;
  close(fd);
}
