/* copy_file_range, sendfile, sendfile64, splice: a read on the source and a write on the target.
 * Source s has 100000 bytes.  read green 4 (50000, 40000, the 9990 of the 20000 asked: end of
 * file, the 0 after it), red 3; write green 3, red 4; the pipe sides (2) and the
 * pipe closes (2) are ignored_calls (4); create green 1 (d), open green 1 (s); close green 2 */
#include <sys/sendfile.h>

#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int in = open(P("s"), O_RDONLY);
  int out = open(P("d"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(in >= 0 && out >= 0);
  CHECK(copy_file_range(in, NULL, out, NULL, 50000, 0) == 50000);
  CHECK(copy_file_range(in, NULL, out, NULL, 10, 0) == 10);
  CHECK(sendfile(out, in, NULL, 40000) == 40000);
  off_t off = 0;
  CHECK(sendfile64(out, in, &off, 100) == 100);
  int p[2];
  CHECK(pipe(p) == 0);
  loff_t soff = 0;
  CHECK(splice(in, &soff, p[1], NULL, 1000, 0) == 1000);
  CHECK(splice(p[0], NULL, out, NULL, 1000, 0) == 1000);
  CHECK(copy_file_range(in, NULL, out, NULL, 20000, 0) == 9990);
  CHECK(copy_file_range(in, NULL, out, NULL, 20000, 0) == 0);
  CHECK(close(p[0]) == 0 && close(p[1]) == 0);
  CHECK(close(in) == 0 && close(out) == 0);
  return 0;
}
