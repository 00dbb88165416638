/* stdio: fopen fopen64 fdopen freopen fread fread_unlocked fwrite fwrite_unlocked fclose.
 * stdio's own buffered read/write system calls must NOT be counted again.
 *   create green 1 (f, 40100 bytes), yellow 1 (g, 5 bytes, closed by freopen)
 *   open green 1 (fopen64 f), yellow 2 (fdopen'd fd 20 bytes; freopen f 100 bytes), red 1 (missing)
 *   write red 2 (100, 5), green 1 (40000); read green 1 (40100), red 4 (0, 10, 10, 100); close green 5 */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  FILE *fp = fopen(P("f"), "w");
  CHECK(fp);
  CHECK(fwrite(t_buf, 1, 100, fp) == 100);
  CHECK(fwrite(t_buf, 1000, 40, fp) == 40);
  CHECK(fclose(fp) == 0);
  fp = fopen64(P("f"), "r");
  CHECK(fp);
  CHECK(fread(t_buf, 1, 50000, fp) == 40100);
  CHECK(fread(t_buf, 1, 10, fp) == 0);
  CHECK(fclose(fp) == 0);
  int fd = open(P("f"), O_RDONLY);
  CHECK(fd >= 0);
  fp = fdopen(fd, "r");
  CHECK(fp);
  CHECK(fread(t_buf, 1, 10, fp) == 10);
  CHECK(fread_unlocked(t_buf, 1, 10, fp) == 10);
  CHECK(fclose(fp) == 0);
  fp = fopen(P("g"), "a");
  CHECK(fp);
  /* with a constant tiny size glibc's header inlines fwrite_unlocked into putc: not a call */
  volatile size_t five = 5;
  CHECK(fwrite_unlocked(t_buf, 1, five, fp) == 5);
  fp = freopen(P("f"), "r", fp);
  CHECK(fp);
  CHECK(fread(t_buf, 1, 100, fp) == 100);
  CHECK(fclose(fp) == 0);
  CHECK(fopen(P("missing"), "r") == NULL);
  return 0;
}
