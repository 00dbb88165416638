/* A child forked while ANOTHER thread is inside MPI_Init: that call is not the child's, so the
 * child's own calls are the program's. The child opens and closes "child" 3 times; the parent's main
 * thread makes no file call while the other thread is inside MPI_Init. */
#include <pthread.h>
#include <sys/wait.h>

#include "t_util.h"

int MPI_Init(int *argc, char ***argv);
void fake_mpi_wait_entered(void);
void fake_mpi_release(void);

static void *init_thread(void *arg) {
  (void)arg;
  MPI_Init(NULL, NULL);
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  snprintf(t_dir, sizeof t_dir, "%s", argv[1]);
  pthread_t th;
  CHECK(pthread_create(&th, NULL, init_thread, NULL) == 0);
  fake_mpi_wait_entered();
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    for (int i = 0; i < 3; i++) {
      int fd = open(P("child"), O_CREAT | O_WRONLY, 0644);
      if (fd < 0 || close(fd) != 0) _exit(98);
    }
    exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fake_mpi_release();
  CHECK(pthread_join(th, NULL) == 0);
  return 0;
}
