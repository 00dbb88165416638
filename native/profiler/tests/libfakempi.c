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
