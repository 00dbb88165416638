/*
 * MPI start-up and shutdown: what MPI_Init, MPI_Init_thread and MPI_Finalize do (the runtime's
 * configuration, topology and session files, the shared-memory checks) is the MPI library's, not the
 * program's: while any thread is inside one of them, every call is counted in the MPI runtime's slots
 * (its own threads start there), sent as that component's MOUNT frames (mounts.c). Nothing is
 * counted here.
 *
 * MPI-IO: what a thread does inside an MPI_File_* call (the opens of the file, the library's lock
 * tests and shared-file-pointer files, the reads and writes of collective buffering, the syncs) is
 * the MPI-IO library's: counted in the MPI-IO component's slots (mounts.c), and so are the calls on
 * the descriptors opened there, wherever made (the transfers of a nonblocking request that end in
 * MPI_Wait). MPI_File_open is collective: every rank opens the file (and ROMIO/OMPIO create, lock
 * and delete a lock-test file beside it), while in collective I/O only the aggregator ranks move the
 * data. The opens made inside MPI_File_open are therefore also marked like those whose bytes move
 * where this process does not see them: an open there through which nothing moved is
 * open_bytes_unseen, not "moved no byte" (docs/profiler.md "Classification"). Nothing is counted
 * here; the calls inside are.
 */
#include <dlfcn.h>
#include <link.h>

#include "base/real.h"
#include "base/state.h"
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

/* The next definition of the MPI function `sym` (cached per symbol). */
static void *jobio_mpi_next(int sym, const char *name, void *self) {
  static void *found[JOBIO_SYM_COUNT];
  void *p = __atomic_load_n(&found[sym], __ATOMIC_ACQUIRE);
  if (p) return p;
  if (__atomic_load_n(&jobio_real[sym], __ATOMIC_ACQUIRE) || jobio_resolve_slow(sym) != NULL) {
    p = __atomic_load_n(&jobio_real[sym], __ATOMIC_ACQUIRE);
  }
  if (!p) {
    struct jobio_mpi_find f = {name, self, NULL};
    jobio_t.busy++;
    dl_iterate_phdr(jobio_mpi_find_in, &f);
    jobio_t.busy--;
    p = f.found;
  }
  if (p) __atomic_store_n(&found[sym], p, __ATOMIC_RELEASE);
  return p;
}

/* A thread enters and leaves the MPI-IO library (nested calls count once); atomics keep errno. */
static void jobio_mpi_io_enter(struct jobio_tls *t) {
  if (t->mpi_io++ == 0) jobio_component_gate_add(1);
}
static void jobio_mpi_io_leave(struct jobio_tls *t) {
  if (--t->mpi_io == 0) jobio_component_gate_add(-1);
}

static int jobio_mpi_open(int sym, const char *name, void *self, void *comm, const char *path, int amode, void *info, void *fh) {
  int saved = errno;
  jobio_mpi_open_fn next = (jobio_mpi_open_fn)jobio_mpi_next(sym, name, self);
  errno = saved;
  if (!next) return -1; /* no MPI library defines it: nothing could have called it */
  struct jobio_tls *t = &jobio_t;
  t->collective++;
  jobio_mpi_io_enter(t);
  int r = next(comm, path, amode, info, fh);
  jobio_mpi_io_leave(t);
  t->collective--;
  return r;
}

JOBIO_EXPORT int MPI_File_open(void *comm, const char *path, int amode, void *info, void *fh) {
  return jobio_mpi_open(JOBIO_SYM_MPI_File_open, "MPI_File_open", (void *)MPI_File_open, comm, path, amode, info, fh);
}
JOBIO_EXPORT int PMPI_File_open(void *comm, const char *path, int amode, void *info, void *fh) {
  return jobio_mpi_open(JOBIO_SYM_PMPI_File_open, "PMPI_File_open", (void *)PMPI_File_open, comm, path, amode, info, fh);
}

/* The other MPI-IO calls, passed through as six words (symbols.def, JOBIO_MPI_WORDS): only where a
 * word holds an MPI_Offset (a 32-bit build does not wrap them). */
#if __SIZEOF_POINTER__ == 8
_Static_assert(sizeof(uintptr_t) == 8, "MPI-IO calls are passed through as six 8-byte words");
typedef int (*jobio_mpi_io_fn)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);
static int jobio_mpi_io(int sym, const char *name, void *self, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e, uintptr_t f) {
  int saved = errno;
  jobio_mpi_io_fn next = (jobio_mpi_io_fn)jobio_mpi_next(sym, name, self);
  errno = saved;
  if (!next) return -1;
  struct jobio_tls *t = &jobio_t;
  jobio_mpi_io_enter(t);
  int r = next(a, b, c, d, e, f);
  jobio_mpi_io_leave(t);
  return r;
}
#define JOBIO_MPI_IO_WRAP(fn)                                                                                          \
  JOBIO_EXPORT int fn(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e, uintptr_t f) {                  \
    return jobio_mpi_io(JOBIO_SYM_##fn, #fn, (void *)fn, a, b, c, d, e, f);                                            \
  }
#define JOBIO_MPI_IO_BOTH(suffix) JOBIO_MPI_IO_WRAP(MPI_File_##suffix) JOBIO_MPI_IO_WRAP(PMPI_File_##suffix)
JOBIO_MPI_IO_BOTH(close)
JOBIO_MPI_IO_BOTH(delete)
JOBIO_MPI_IO_BOTH(set_size)
JOBIO_MPI_IO_BOTH(preallocate)
JOBIO_MPI_IO_BOTH(get_size)
JOBIO_MPI_IO_BOTH(set_view)
JOBIO_MPI_IO_BOTH(set_atomicity)
JOBIO_MPI_IO_BOTH(sync)
JOBIO_MPI_IO_BOTH(seek_shared)
JOBIO_MPI_IO_BOTH(get_position_shared)
JOBIO_MPI_IO_BOTH(seek) /* MPI_SEEK_END: the library asks the file system for the end (fstat, lseek) */
JOBIO_MPI_IO_BOTH(get_position)
JOBIO_MPI_IO_BOTH(set_info) /* hints may make the library reopen or resize the file */
JOBIO_MPI_IO_BOTH(read)
JOBIO_MPI_IO_BOTH(read_all)
JOBIO_MPI_IO_BOTH(read_at)
JOBIO_MPI_IO_BOTH(read_at_all)
JOBIO_MPI_IO_BOTH(read_shared)
JOBIO_MPI_IO_BOTH(read_ordered)
JOBIO_MPI_IO_BOTH(write)
JOBIO_MPI_IO_BOTH(write_all)
JOBIO_MPI_IO_BOTH(write_at)
JOBIO_MPI_IO_BOTH(write_at_all)
JOBIO_MPI_IO_BOTH(write_shared)
JOBIO_MPI_IO_BOTH(write_ordered)
JOBIO_MPI_IO_BOTH(iread)
JOBIO_MPI_IO_BOTH(iread_all)
JOBIO_MPI_IO_BOTH(iread_at)
JOBIO_MPI_IO_BOTH(iread_at_all)
JOBIO_MPI_IO_BOTH(iread_shared)
JOBIO_MPI_IO_BOTH(iwrite)
JOBIO_MPI_IO_BOTH(iwrite_all)
JOBIO_MPI_IO_BOTH(iwrite_at)
JOBIO_MPI_IO_BOTH(iwrite_at_all)
JOBIO_MPI_IO_BOTH(iwrite_shared)
JOBIO_MPI_IO_BOTH(read_all_begin)
JOBIO_MPI_IO_BOTH(read_all_end)
JOBIO_MPI_IO_BOTH(read_at_all_begin)
JOBIO_MPI_IO_BOTH(read_at_all_end)
JOBIO_MPI_IO_BOTH(read_ordered_begin)
JOBIO_MPI_IO_BOTH(read_ordered_end)
JOBIO_MPI_IO_BOTH(write_all_begin)
JOBIO_MPI_IO_BOTH(write_all_end)
JOBIO_MPI_IO_BOTH(write_at_all_begin)
JOBIO_MPI_IO_BOTH(write_at_all_end)
JOBIO_MPI_IO_BOTH(write_ordered_begin)
JOBIO_MPI_IO_BOTH(write_ordered_end)
/* MPI-4's large-count variants: the same calls with an MPI_Count (one word here) for the count */
JOBIO_MPI_IO_BOTH(read_c)
JOBIO_MPI_IO_BOTH(read_all_c)
JOBIO_MPI_IO_BOTH(read_at_c)
JOBIO_MPI_IO_BOTH(read_at_all_c)
JOBIO_MPI_IO_BOTH(read_shared_c)
JOBIO_MPI_IO_BOTH(read_ordered_c)
JOBIO_MPI_IO_BOTH(write_c)
JOBIO_MPI_IO_BOTH(write_all_c)
JOBIO_MPI_IO_BOTH(write_at_c)
JOBIO_MPI_IO_BOTH(write_at_all_c)
JOBIO_MPI_IO_BOTH(write_shared_c)
JOBIO_MPI_IO_BOTH(write_ordered_c)
JOBIO_MPI_IO_BOTH(iread_c)
JOBIO_MPI_IO_BOTH(iread_all_c)
JOBIO_MPI_IO_BOTH(iread_at_c)
JOBIO_MPI_IO_BOTH(iread_at_all_c)
JOBIO_MPI_IO_BOTH(iread_shared_c)
JOBIO_MPI_IO_BOTH(iwrite_c)
JOBIO_MPI_IO_BOTH(iwrite_all_c)
JOBIO_MPI_IO_BOTH(iwrite_at_c)
JOBIO_MPI_IO_BOTH(iwrite_at_all_c)
JOBIO_MPI_IO_BOTH(iwrite_shared_c)
JOBIO_MPI_IO_BOTH(read_all_begin_c)
JOBIO_MPI_IO_BOTH(read_at_all_begin_c)
JOBIO_MPI_IO_BOTH(read_ordered_begin_c)
JOBIO_MPI_IO_BOTH(write_all_begin_c)
JOBIO_MPI_IO_BOTH(write_at_all_begin_c)
JOBIO_MPI_IO_BOTH(write_ordered_begin_c)
#endif /* __SIZEOF_POINTER__ == 8 */

/* Start-up and shutdown: the next definition called with the MPI runtime's slots in use. */
typedef int (*jobio_mpi_init_fn)(int *, char ***);
typedef int (*jobio_mpi_init_thread_fn)(int *, char ***, int, int *);
typedef int (*jobio_mpi_finalize_fn)(void);

static void *jobio_mpi_enter(int sym, const char *name, void *self) {
  int saved = errno;
  void *next = jobio_mpi_next(sym, name, self);
  if (next) {
    jobio_t.mpi_runtime++;
    __atomic_add_fetch(&jobio_g.mpi_runtime, 1, __ATOMIC_RELAXED);
    jobio_component_gate_add(1);
  }
  errno = saved;
  return next;
}
static int jobio_mpi_leave(int r) {
  int saved = errno;
  jobio_t.mpi_runtime--;
  __atomic_sub_fetch(&jobio_g.mpi_runtime, 1, __ATOMIC_RELAXED);
  jobio_component_gate_add(-1);
  errno = saved;
  return r;
}

static int jobio_mpi_init(int sym, const char *name, void *self, int *argc, char ***argv) {
  jobio_mpi_init_fn next = (jobio_mpi_init_fn)jobio_mpi_enter(sym, name, self);
  return next ? jobio_mpi_leave(next(argc, argv)) : -1;
}
static int jobio_mpi_init_thread(int sym, const char *name, void *self, int *argc, char ***argv, int required, int *provided) {
  jobio_mpi_init_thread_fn next = (jobio_mpi_init_thread_fn)jobio_mpi_enter(sym, name, self);
  return next ? jobio_mpi_leave(next(argc, argv, required, provided)) : -1;
}
static int jobio_mpi_finalize(int sym, const char *name, void *self) {
  jobio_mpi_finalize_fn next = (jobio_mpi_finalize_fn)jobio_mpi_enter(sym, name, self);
  return next ? jobio_mpi_leave(next()) : -1;
}

JOBIO_EXPORT int MPI_Init(int *argc, char ***argv) { return jobio_mpi_init(JOBIO_SYM_MPI_Init, "MPI_Init", (void *)MPI_Init, argc, argv); }
JOBIO_EXPORT int PMPI_Init(int *argc, char ***argv) { return jobio_mpi_init(JOBIO_SYM_PMPI_Init, "PMPI_Init", (void *)PMPI_Init, argc, argv); }
JOBIO_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return jobio_mpi_init_thread(JOBIO_SYM_MPI_Init_thread, "MPI_Init_thread", (void *)MPI_Init_thread, argc, argv, required, provided);
}
JOBIO_EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return jobio_mpi_init_thread(JOBIO_SYM_PMPI_Init_thread, "PMPI_Init_thread", (void *)PMPI_Init_thread, argc, argv, required, provided);
}
JOBIO_EXPORT int MPI_Finalize(void) { return jobio_mpi_finalize(JOBIO_SYM_MPI_Finalize, "MPI_Finalize", (void *)MPI_Finalize); }
JOBIO_EXPORT int PMPI_Finalize(void) { return jobio_mpi_finalize(JOBIO_SYM_PMPI_Finalize, "PMPI_Finalize", (void *)PMPI_Finalize); }
