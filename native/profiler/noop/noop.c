/*
 * The benchmark floor: a preload library that forwards the benchmark's calls (read, pread,
 * write, lseek, stat) to the next definition and does nothing else, resolved once like libjobio.
 */
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define NOOP_EXPORT __attribute__((visibility("default")))

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_write)(int, const void *, size_t);
static off_t (*real_lseek)(int, off_t, int);
static int (*real_stat)(const char *, struct stat *);

__attribute__((constructor)) static void noop_init(void) {
  real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
  real_pread = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
  real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  real_lseek = (off_t(*)(int, off_t, int))dlsym(RTLD_NEXT, "lseek");
  real_stat = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "stat");
}

NOOP_EXPORT ssize_t read(int fd, void *b, size_t n) { return real_read(fd, b, n); }
NOOP_EXPORT ssize_t pread(int fd, void *b, size_t n, off_t o) { return real_pread(fd, b, n, o); }
NOOP_EXPORT ssize_t write(int fd, const void *b, size_t n) { return real_write(fd, b, n); }
NOOP_EXPORT off_t lseek(int fd, off_t o, int w) { return real_lseek(fd, o, w); }
NOOP_EXPORT int stat(const char *p, struct stat *b) { return real_stat(p, b); }
