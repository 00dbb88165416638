/* A program that looks at an existing SQLite journal ("db-journal", made by the test) without creating
 * it: a stat, an access and an open without O_CREAT (what a reader's hot-journal check does), then
 * opens the journal's directory itself. SQLite syncs a journal's directory only after opening the
 * journal with O_CREAT, so that directory open is the program's. */
#include "t_util.h"

int main(int argc, char **argv) {
  CHECK(argc == 2);
  snprintf(t_dir, sizeof t_dir, "%s", argv[1]);
  struct stat st;
  CHECK(stat(P("db-journal"), &st) == 0);
  CHECK(access(P("db-journal"), F_OK) == 0);
  int fd = open(P("db-journal"), O_RDONLY);
  CHECK(fd >= 0 && close(fd) == 0);
  fd = open(t_dir, O_RDONLY | O_DIRECTORY);
  CHECK(fd >= 0 && close(fd) == 0);
  return 0;
}
