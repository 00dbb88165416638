/*
 * The declaration table: every wrapped symbol with the slot that keeps its next definition,
 * resolved lazily with dlsym(RTLD_NEXT) (and dlvsym for compat-only symbols such as __xstat on
 * glibc >= 2.33). Enumerated by tests through the jobio-symbols tool.
 */
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <string.h>

#include "base/real.h"

#include "base/tls.h"

void *jobio_real[JOBIO_SYM_COUNT];

const struct jobio_symbol jobio_symbols[JOBIO_SYM_COUNT] = {
#define JOBIO_SYM(name, ret, params) {#name, &jobio_real[JOBIO_SYM_##name]},
#include "base/symbols.def"
#undef JOBIO_SYM
};

#if defined(__x86_64__)
#define JOBIO_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define JOBIO_GLIBC_BASE "GLIBC_2.17"
#elif defined(__powerpc64__)
#define JOBIO_GLIBC_BASE "GLIBC_2.3"
#else
#define JOBIO_GLIBC_BASE "GLIBC_2.0"
#endif

/* Used when a symbol cannot be resolved: behave as a kernel without the call. */
static long jobio_enosys(void) {
  errno = ENOSYS;
  return -1;
}

/* Raw fallbacks for the few calls dlsym or an allocator might make while we resolve. */
static ssize_t fb_read(int fd, void *b, size_t n) { return syscall(SYS_read, fd, b, n); }
static ssize_t fb_write(int fd, const void *b, size_t n) { return syscall(SYS_write, fd, b, n); }
static int fb_close(int fd) { return (int)syscall(SYS_close, fd); }
static int fb_open(const char *p, int f, ...) { return (int)syscall(SYS_openat, AT_FDCWD, p, f, 0); }
static int fb_openat(int d, const char *p, int f, ...) { return (int)syscall(SYS_openat, d, p, f, 0); }
static int fb_fstat(int fd, struct stat *st) { return (int)syscall(SYS_fstat, fd, st); }
static void *fb_mmap(void *a, size_t l, int p, int f, int fd, off_t o) {
  return (void *)syscall(SYS_mmap, a, l, p, f, fd, o);
}

static void *jobio_fallback(int sym) {
  switch (sym) {
    case JOBIO_SYM_read: return (void *)fb_read;
    case JOBIO_SYM_write: return (void *)fb_write;
    case JOBIO_SYM_close: return (void *)fb_close;
    case JOBIO_SYM_open:
    case JOBIO_SYM_open64: return (void *)fb_open;
    case JOBIO_SYM_openat:
    case JOBIO_SYM_openat64: return (void *)fb_openat;
    case JOBIO_SYM_fstat:
    case JOBIO_SYM_fstat64: return (void *)fb_fstat;
    case JOBIO_SYM_mmap:
    case JOBIO_SYM_mmap64: return (void *)fb_mmap;
    default: return (void *)jobio_enosys;
  }
}

static __thread int jobio_resolving __attribute__((tls_model("initial-exec")));

/* Our own image: [__ehdr_start, _end) (hidden: these name this library's own symbols). */
extern const char __ehdr_start[] __attribute__((visibility("hidden")));
extern const char _end[] __attribute__((visibility("hidden")));
static int jobio_is_self(void *p) { return (const char *)p >= __ehdr_start && (const char *)p < _end; }

void *jobio_resolve_slow(int sym) {
  void *p = __atomic_load_n(&jobio_real[sym], __ATOMIC_ACQUIRE);
  if (p) return p;
  /* Called again from inside dlsym (or an allocator it used): do not recurse. */
  if (jobio_resolving) return jobio_fallback(sym);
  int saved = errno;
  jobio_resolving = 1;
  jobio_t.busy++;
  const char *name = jobio_symbols[sym].name;
  p = dlsym(RTLD_NEXT, name);
  /* compat-only symbols (e.g. __xstat, __fxstatat on glibc >= 2.33) are found by version only */
  static const char *const versions[] = {JOBIO_GLIBC_BASE, "GLIBC_2.4", "GLIBC_2.3", "GLIBC_2.33"};
  for (size_t i = 0; !p && i < sizeof versions / sizeof versions[0]; i++) p = dlvsym(RTLD_NEXT, name, versions[i]);
  if (p && jobio_is_self(p)) p = NULL; /* never resolve a wrapper to itself (loaded twice) */
  jobio_t.busy--;
  jobio_resolving = 0;
  errno = saved;
  if (!p) {
    /* Missing in this C library: nothing can call it through us anyway unless the program
     * links it from elsewhere; answer like a kernel without the call. Not cached, so a library
     * loaded later that provides it is still found. */
    return jobio_fallback(sym);
  }
  __atomic_store_n(&jobio_real[sym], p, __ATOMIC_RELEASE);
  return p;
}

/* The MPI functions are left to their first call (wrap_mpi.c looks further for them): most
 * processes have no MPI library, and each name missing costs a search of every loaded object. */
void jobio_resolve_all(void) {
  for (int i = 0; i < JOBIO_SYM_COUNT; i++) {
    const char *name = jobio_symbols[i].name;
    if (name[0] == 'M' ? strncmp(name, "MPI_", 4) == 0 : (name[0] == 'P' && strncmp(name, "PMPI_", 5) == 0)) continue;
    (void)jobio_resolve(i);
  }
}
