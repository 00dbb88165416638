/* The same path stat'ed in two slots: "a-journal" and "b-journal" (made by the test) are SQLite
 * journals by name, but a successful stat answered by the device of the thread's last lookup is not
 * tested by name, so of three stats of each the first is the journal component's and the others
 * the program's. a-journal is then opened (its stats used), b-journal never (unused at the exit). */
#include "t_util.h"

int main(int argc, char **argv) {
  CHECK(argc == 2);
  snprintf(t_dir, sizeof t_dir, "%s", argv[1]);
  struct stat st;
  for (int i = 0; i < 3; i++) CHECK(stat(P("a-journal"), &st) == 0);
  for (int i = 0; i < 3; i++) CHECK(stat(P("b-journal"), &st) == 0);
  int fd = open(P("a-journal"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  return 0;
}
