/* A stand-in MPI library for t_mpi_fork: its MPI_Init says it has been entered, then waits until
 * fake_mpi_release() is called; no file is touched inside. */
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int entered, released;

int MPI_Init(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  pthread_mutex_lock(&mu);
  entered = 1;
  pthread_cond_broadcast(&cv);
  while (!released) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return 0;
}

void fake_mpi_wait_entered(void) {
  pthread_mutex_lock(&mu);
  while (!entered) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

void fake_mpi_release(void) {
  pthread_mutex_lock(&mu);
  released = 1;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
}

/* MPI-IO calls that reach the file system: each opens and closes the file fake_mpi_file_at names. */
#include <fcntl.h>
#include <unistd.h>
static const char *file;
void fake_mpi_file_at(const char *path) { file = path; }
static int touch(void) {
  int fd = open(file, O_RDONLY);
  return fd >= 0 && close(fd) == 0 ? 0 : 1;
}
int MPI_File_seek(void *fh, long long offset, int whence) {
  (void)fh;
  (void)offset;
  (void)whence;
  return touch();
}
int MPI_File_get_position(void *fh, long long *offset) {
  (void)fh;
  *offset = 0;
  return touch();
}
int MPI_File_set_info(void *fh, void *info) {
  (void)fh;
  (void)info;
  return touch();
}
/* MPI-4's large-count variants: six words (at_all) and five (iread) */
int MPI_File_write_at_all_c(void *fh, long long offset, const void *buf, long long count, void *datatype, void *status) {
  (void)fh;
  (void)offset;
  (void)buf;
  (void)count;
  (void)datatype;
  (void)status;
  return touch();
}
int MPI_File_iread_c(void *fh, void *buf, long long count, void *datatype, void *request) {
  (void)fh;
  (void)buf;
  (void)count;
  (void)datatype;
  (void)request;
  return touch();
}
