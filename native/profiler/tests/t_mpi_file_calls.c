/* MPI_File_seek, MPI_File_get_position, MPI_File_set_info and the large-count MPI_File_write_at_all_c
 * and MPI_File_iread_c of the stand-in MPI library, each of which opens and closes DIR/f once: those opens are the MPI-IO library's. The program then opens
 * DIR/f once itself. */
#include "t_util.h"

int MPI_File_seek(void *fh, long long offset, int whence);
int MPI_File_get_position(void *fh, long long *offset);
int MPI_File_set_info(void *fh, void *info);
int MPI_File_write_at_all_c(void *fh, long long offset, const void *buf, long long count, void *datatype, void *status);
int MPI_File_iread_c(void *fh, void *buf, long long count, void *datatype, void *request);
void fake_mpi_file_at(const char *path);

int main(int argc, char **argv) {
  CHECK(argc == 2);
  snprintf(t_dir, sizeof t_dir, "%s", argv[1]);
  char path[4200];
  snprintf(path, sizeof path, "%s", P("f"));
  int fd = open(path, O_CREAT | O_WRONLY, 0644);
  CHECK(fd >= 0 && close(fd) == 0);
  fake_mpi_file_at(path);
  long long pos = 1;
  CHECK(MPI_File_seek(NULL, 0, 2) == 0);
  CHECK(MPI_File_get_position(NULL, &pos) == 0 && pos == 0);
  CHECK(MPI_File_set_info(NULL, NULL) == 0);
  CHECK(MPI_File_write_at_all_c(NULL, 0, path, 1, NULL, NULL) == 0);
  CHECK(MPI_File_iread_c(NULL, path, 1, NULL, NULL) == 0);
  return 0;
}
