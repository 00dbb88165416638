/*
 * Multi-threaded writer for the profiler tests: THREADS threads each write WRITES records of 100 bytes
 * with write(2) to their own file in DIR, then the main thread reads every file back with read(2)
 * in 4 KiB chunks and prints the total byte count. Usage: threads DIR THREADS WRITES
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir;
static int writes;

static void *writer(void *arg) {
  long id = (long)arg;
  char path[4096], rec[100];
  snprintf(path, sizeof(path), "%s/t%ld.dat", dir, id);
  int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) return (void *)1;
  memset(rec, 'a' + (int)id, sizeof(rec));
  for (int i = 0; i < writes; i++)
    if (write(fd, rec, sizeof(rec)) != (ssize_t)sizeof(rec)) return (void *)1;
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) return 2;
  dir = argv[1];
  int threads = atoi(argv[2]);
  writes = atoi(argv[3]);
  pthread_t t[64];
  if (threads < 1 || threads > 64) return 2;
  for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, writer, (void *)i);
  int failed = 0;
  for (int i = 0; i < threads; i++) {
    void *r;
    pthread_join(t[i], &r);
    failed |= r != NULL;
  }
  long total = 0;
  char buf[4096], path[4096];
  for (int i = 0; i < threads; i++) {
    snprintf(path, sizeof(path), "%s/t%d.dat", dir, i);
    int fd = open(path, O_RDONLY);
    ssize_t n;
    while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0) total += n;
    if (fd >= 0) close(fd);
  }
  printf("%ld\n", total);
  return failed ? 1 : 0;
}
