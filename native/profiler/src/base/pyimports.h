/*
 * Python's import system as a component of a Python interpreter's calls. The rule, stated in the
 * docs ("Who the hint is for"): in a process whose executable is named python, python3 or python3.N,
 * a call on a path ending in .py, .pyc, .pth or .so is the import system's, and so are the calls on
 * the descriptors such opens return. A suffix test on the path the wrapper already holds, nothing
 * measured: the directory listings and stats of sys.path's directories stay the program's.
 */
#ifndef JOBIO_PYIMPORTS_H
#define JOBIO_PYIMPORTS_H
#include <string.h>

#pragma GCC visibility push(hidden)

/* A module's file by its name: source, bytecode, path configuration, extension module. */
static inline int jobio_python_import_path(const char *path) {
  if (!path) return 0;
  size_t n = strlen(path);
  const char *e = path + n;
  if (n >= 3 && e[-3] == '.' && e[-2] == 's' && e[-1] == 'o') return 1;
  if (n >= 3 && e[-3] == '.' && e[-2] == 'p' && e[-1] == 'y') return 1;
  if (n >= 4 && e[-4] == '.' && e[-3] == 'p' && ((e[-2] == 'y' && e[-1] == 'c') || (e[-2] == 't' && e[-1] == 'h'))) return 1;
  return 0;
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
