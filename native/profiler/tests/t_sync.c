/* sync family: yellow on success, red on failure. File f exists.
 *   sync yellow 5 (fsync, fdatasync, syncfs, sync_file_range, sync), red 1 (sync_file_range EINVAL);
 *   open green 1 (opened to be synced: no byte moved, yet not red) */
#include "t_util.h"

int main(int argc, char **argv) {
  t_init(argc, argv);
  CHECK(chdir(t_dir) == 0); /* sync() is attributed to the working directory's file system */
  int fd = open(P("f"), O_RDWR);
  CHECK(fd >= 0);
  CHECK(fsync(fd) == 0);
  CHECK(fdatasync(fd) == 0);
  CHECK(syncfs(fd) == 0);
  CHECK(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) == 0);
  sync();
  CHECK(sync_file_range(fd, 0, 0, 0xff) == -1 && errno == EINVAL);
  CHECK(close(fd) == 0);
  return 0;
}
