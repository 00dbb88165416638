/*
 * MPI-IO: MPI_File_open is collective, every rank opens the file (and ROMIO/OMPIO create, lock and
 * delete a lock-test file beside it), while in collective I/O only the aggregator ranks move the
 * data. The opens made inside MPI_File_open are therefore marked like those whose bytes move where
 * this process does not see them: an open there through which nothing moved is open_bytes_unseen,
 * not "moved no byte" (docs/profiler.md "Classification"). Nothing is counted here; the opens are.
 */
#include <dlfcn.h>
#include <link.h>

#include "base/real.h"
#include "base/tls.h"
#include "wrap/entry.h"

typedef int (*jobio_mpi_open_fn)(void *, const char *, int, void *, void *);

/* A library loaded with RTLD_LOCAL (mpi4py's libmpi) is not after us in the global scope, so
 * dlsym(RTLD_NEXT) misses it: look in every loaded object but this one. */
struct jobio_mpi_find {
  const char *name;
  void *self;
  void *found;
};
static int jobio_mpi_find_in(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct jobio_mpi_find *f = arg;
  if (!info->dlpi_name || !info->dlpi_name[0]) return 0;
  void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return 0;
  void *p = dlsym(h, f->name);
  dlclose(h);
  if (p && p != f->self) f->found = p;
  return f->found != NULL;
}

static jobio_mpi_open_fn jobio_mpi_next(int sym, const char *name, void *self) {
  static jobio_mpi_open_fn found[2];
  int i = sym == JOBIO_SYM_MPI_File_open ? 0 : 1;
  jobio_mpi_open_fn p = __atomic_load_n(&found[i], __ATOMIC_ACQUIRE);
  if (p) return p;
  if (__atomic_load_n(&jobio_real[sym], __ATOMIC_ACQUIRE) || jobio_resolve_slow(sym) != NULL) {
    p = (jobio_mpi_open_fn)__atomic_load_n(&jobio_real[sym], __ATOMIC_ACQUIRE);
  }
  if (!p) {
    struct jobio_mpi_find f = {name, self, NULL};
    jobio_t.busy++;
    dl_iterate_phdr(jobio_mpi_find_in, &f);
    jobio_t.busy--;
    p = (jobio_mpi_open_fn)f.found;
  }
  if (p) __atomic_store_n(&found[i], p, __ATOMIC_RELEASE);
  return p;
}

static int jobio_mpi_open(int sym, const char *name, void *self, void *comm, const char *path, int amode, void *info, void *fh) {
  int saved = errno;
  jobio_mpi_open_fn next = jobio_mpi_next(sym, name, self);
  errno = saved;
  if (!next) return -1; /* no MPI library defines it: nothing could have called it */
  jobio_t.collective++;
  int r = next(comm, path, amode, info, fh);
  saved = errno;
  jobio_t.collective--;
  errno = saved;
  return r;
}

JOBIO_EXPORT int MPI_File_open(void *comm, const char *path, int amode, void *info, void *fh) {
  return jobio_mpi_open(JOBIO_SYM_MPI_File_open, "MPI_File_open", (void *)MPI_File_open, comm, path, amode, info, fh);
}
JOBIO_EXPORT int PMPI_File_open(void *comm, const char *path, int amode, void *info, void *fh) {
  return jobio_mpi_open(JOBIO_SYM_PMPI_File_open, "PMPI_File_open", (void *)PMPI_File_open, comm, path, amode, info, fh);
}
