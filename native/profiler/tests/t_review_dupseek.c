/* Seeks on a dup alias while the bytes move through the other descriptor (they share one offset):
 * 200 bytes written through a; b = dup(a); through b: a seek to 0 (200 -> 0, back); 100 bytes read
 * through a; through b: to 50 (100 -> 50, back), to 150 (forward); 10 bytes read through a; through
 * b: to 155 (160 -> 155, back), and SEEK_CUR 0 (the same offset). Seeks: 4 red (3 back, 1 same), 1
 * yellow; the offset before each is the kernel's, whichever descriptor moved it. */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  int a = open(P("shared"), O_CREAT | O_RDWR | O_TRUNC, 0644);
  CHECK(a >= 0 && write(a, t_buf, 200) == 200);
  int b = dup(a);
  CHECK(b >= 0);
  CHECK(lseek(b, 0, SEEK_SET) == 0);
  CHECK(read(a, t_buf, 100) == 100);
  CHECK(lseek(b, 50, SEEK_SET) == 50);
  CHECK(lseek(b, 150, SEEK_SET) == 150);
  CHECK(read(a, t_buf, 10) == 10);
  CHECK(lseek(b, 155, SEEK_SET) == 155);
  CHECK(lseek(b, 0, SEEK_CUR) == 155);
  CHECK(close(b) == 0 && close(a) == 0);
  return 0;
}
