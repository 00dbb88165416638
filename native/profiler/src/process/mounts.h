/* Mounts (mounts.c): the mount of a file, and the stats slot of each mount with activity. */
#ifndef JOBIO_MOUNTS_H
#define JOBIO_MOUNTS_H
#include "base/common.h"
#include "base/state.h"
#include "base/pyimports.h"

#pragma GCC visibility push(hidden)

#define JOBIO_NET_PEERS 16 /* peer addresses with a stats slot of their own, per process; later ones fold */
/* jobio_slot_for's answer for a path relative to a directory descriptor that its device does not
 * decide: the descriptor's mount (jobio_path_slot, fdtab.c, knows the descriptors) */
#define JOBIO_SLOT_AT_DIRFD (-4)

void jobio_mounts_init(void);
int jobio_slot_for(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode);
int jobio_slot_for_fd(int fd, const struct stat *st);
int jobio_network_slot(void);
int jobio_peer_slot(uint64_t key, void (*name)(const void *arg, char *buf, size_t cap), const void *arg);
int jobio_slot_mount(int slot, const char **path, const char **fstype, const char **source);
int jobio_component_twin(int slot, int component);
/* enum jobio_component of a slot's counts */
int jobio_slot_component(int slot);
/* The slot a call on the program's slot `slot` (on `path`, or NULL) counts in: the MPI runtime's twin
 * of it while some thread is inside MPI_Init or MPI_Finalize (its own threads start there); in a
 * Python interpreter, the import system's twin for a module's file (pyimports.h); else the slot. */
static inline int jobio_component_slot(int slot, const char *path) {
  if (slot < 0) return slot;
  if (JOBIO_UNLIKELY(__atomic_load_n(&jobio_g.mpi_runtime, __ATOMIC_RELAXED))) return jobio_component_twin(slot, JOBIO_COMPONENT_MPI_RUNTIME);
  if (JOBIO_UNLIKELY(jobio_g.python) && jobio_python_import_path(path)) return jobio_component_twin(slot, JOBIO_COMPONENT_PYTHON_IMPORTS);
  return slot;
}
void jobio_cwd_changed(void);
void jobio_mounts_after_fork(void);

extern uint32_t jobio_mount_gen;

#pragma GCC visibility pop
#endif /* JOBIO_MOUNTS_H */
