/*
 * Python's import system as a component of a Python interpreter's calls. The rule, stated in the
 * docs ("Who the hint is for"): in a process whose executable is named python, python3 or python3.N,
 * a call on a path ending in .py, .pyc, .pth or .so is the import system's, and so are the calls on
 * the descriptors such opens return. So are the calls on a directory that holds a module file the
 * process used before (the directory of that path as written, and the one above a __pycache__):
 * the import system's finders stat their sys.path entry or package directory before every lookup
 * in it, and no name tells those directories apart. A suffix test and a lookup of the path's hash in
 * a table of such directories, nothing measured; a directory's calls before its first module file
 * stay the program's, as do those on directories that never held one (the working directory of
 * `python3 -c`).
 */
#ifndef JOBIO_PYIMPORTS_H
#define JOBIO_PYIMPORTS_H
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

/* Hashes of the directories that held a module file (pyimports.c), open addressing, 0 = free: lock
 * free, never blocks; when a run of slots is full a directory is not remembered (its calls stay the
 * program's). */
#define JOBIO_PYDIRS 1024
#define JOBIO_PYDIRS_PROBES 16
extern uint64_t jobio_python_dirs[JOBIO_PYDIRS];

static inline uint64_t jobio_python_dir_hash(const char *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
  return h ? h : 1;
}

/* Whether the directory `p` (n bytes) is in the table; with `add`, puts it there if it is not. */
static inline int jobio_python_dir(const char *p, size_t n, int add) {
  uint64_t h = jobio_python_dir_hash(p, n);
  uint32_t i = (uint32_t)(h >> 54) & (JOBIO_PYDIRS - 1);
  for (unsigned k = 0; k < JOBIO_PYDIRS_PROBES; k++, i = (i + 1) & (JOBIO_PYDIRS - 1)) {
    uint64_t e = __atomic_load_n(&jobio_python_dirs[i], __ATOMIC_RELAXED);
    if (e == h) return 1;
    if (e) continue;
    if (!add) return 0;
    if (__atomic_compare_exchange_n(&jobio_python_dirs[i], &e, h, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) || e == h) return 1;
  }
  return 0;
}

/* Remembers the directory of a module file's path, and the one above it when that is __pycache__. */
static inline void jobio_python_module_dirs(const char *path, size_t n) {
  const char *slash = memrchr(path, '/', n);
  if (!slash || slash == path) return;
  size_t d = (size_t)(slash - path);
  jobio_python_dir(path, d, 1);
  if (d > 12 && memcmp(slash - 12, "/__pycache__", 12) == 0) jobio_python_dir(path, d - 12, 1);
}

/* A module's file by its name (source, bytecode, path configuration, extension module), or a
 * directory that held one. */
static inline int jobio_python_import_path(const char *path) {
  if (!path || !path[0]) return 0;
  size_t n = strlen(path);
  const char *e = path + n;
  if ((n >= 3 && e[-3] == '.' && ((e[-2] == 's' && e[-1] == 'o') || (e[-2] == 'p' && e[-1] == 'y'))) ||
      (n >= 4 && e[-4] == '.' && e[-3] == 'p' && ((e[-2] == 'y' && e[-1] == 'c') || (e[-2] == 't' && e[-1] == 'h')))) {
    jobio_python_module_dirs(path, n);
    return 1;
  }
  return jobio_python_dir(path, n, 0);
}

/* The executable's base name is python, python3 or python3.N (N digits): a CPython interpreter. */
static inline int jobio_python_exe(const char *exe) {
  if (strncmp(exe, "python", 6) != 0) return 0;
  const char *r = exe + 6;
  if (!*r) return 1;
  if (*r++ != '3') return 0;
  if (!*r) return 1;
  if (*r++ != '.' || !*r) return 0;
  for (; *r; r++)
    if (*r < '0' || *r > '9') return 0;
  return 1;
}

#pragma GCC visibility pop
#endif /* JOBIO_PYIMPORTS_H */
