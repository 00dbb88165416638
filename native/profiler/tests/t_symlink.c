/* Mount attribution without an fstat per open: files opened through symlinks that lead to another
 * mount (argv[2], e.g. a directory on /dev/shm; argv[1] is on another file system). The mount is
 * taken from the path at open and confirmed by the device: from the program's own fstat (file a),
 * or with one fstat before the first transfer (file b). Each file: 65536 bytes read.
 *   on argv[2]'s mount: open green 2, read green 2, access (fstat) yellow 1, close green 2 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(argc == 3);
  char target[4200], link[4200];
  const char *names[] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    snprintf(target, sizeof target, "%s/%s", argv[2], names[i]);
    int w = open(target, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    CHECK(w >= 0);
    CHECK(write(w, t_buf, 65536) == 65536);
    CHECK(close(w) == 0);
    CHECK(symlink(target, P(names[i])) == 0);
  }
  (void)link;
  int fd = open(P("a"), O_RDONLY);
  CHECK(fd >= 0);
  struct stat st;
  CHECK(fstat(fd, &st) == 0 && st.st_size == 65536);
  CHECK(read(fd, t_buf, 65536) == 65536);
  CHECK(close(fd) == 0);
  fd = open(P("b"), O_RDONLY);
  CHECK(fd >= 0);
  CHECK(read(fd, t_buf, 65536) == 65536);
  CHECK(close(fd) == 0);
  return 0;
}
