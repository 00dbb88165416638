/* Threads: 2 rounds of 8 threads x 10000 writes of 8 bytes (each thread its own file): exactly
 * 160000 red writes, 16 creates (green: 80000 bytes), 16 closes. The second round reuses the
 * accumulation blocks of the first. */
#include <pthread.h>

#include "t_util.h"

#define THREADS 8
#define WRITES 10000

static void *worker(void *arg) {
  long id = (long)arg;
  char name[32];
  snprintf(name, sizeof name, "t%ld", id);
  int fd = open(P(name), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  CHECK(fd >= 0);
  for (int i = 0; i < WRITES; i++) CHECK(write(fd, t_buf, 8) == 8);
  CHECK(close(fd) == 0);
  return NULL;
}

int main(int argc, char **argv) {
  t_init(argc, argv);
  for (int round = 0; round < 2; round++) {
    pthread_t th[THREADS];
    for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(i + round * THREADS)) == 0);
    for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
  }
  return 0;
}
