/* Mounts (mounts.c): the mount of a file, and the stats slot of each mount with activity. */
#ifndef JOBIO_MOUNTS_H
#define JOBIO_MOUNTS_H
#include "base/common.h"
#include "base/state.h"
#include "base/pathwalk.h"
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
/*
 * The slot a call on the program's slot `slot` (on `path`, or NULL) counts in (docs/profiler.md "Who
 * the hint is for"): a component's twin of it (jobio_component_twin) or the slot. In order: the MPI
 * runtime's while some thread is inside MPI_Init or MPI_Finalize (its own threads start there); the
 * MPI-IO library's while this thread is inside an MPI_File_* call; SQLite's journals' for a path
 * named as one (`sqlite`: jobio_pw_sqlite of it, taken where the path is walked) and for the directory
 * SQLite opens to sync a journal this thread opened; in a Python interpreter, the import system's for
 * a module's file (pyimports.h). Calls on a descriptor count where its open did. The common case, no
 * component, is one load and a branch (jobio_g.component_gate), or for a walked path one load and a
 * bit test of jobio_component_bits (base/state.h).
 */
int jobio_component_other(int slot, const char *path, const struct jobio_pathwalk *pw, uint32_t sqlite, int opening);
/* `opening` of a path call: JOBIO_OPENS, the call opens the path (it may be the directory SQLite opens
 * to sync a journal); JOBIO_OPENS_CREAT, with O_CREAT (of a journal: SQLite syncs its directory next,
 * see jobio_component_other); 0, any other call (a stat or access looks, and starts or ends nothing) */
#define JOBIO_OPENS 1
#define JOBIO_OPENS_CREAT 3
/* a path walked already (pw: its walk) */
static inline int jobio_component_named(const char *path, const struct jobio_pathwalk *pw) {
  return __atomic_load_n(&jobio_component_bits, __ATOMIC_RELAXED) >> jobio_pw_sqlite_bit(jobio_pw_last4(path, pw->len)) & 1;
}
static inline int jobio_component_walked_as(int slot, const char *path, const struct jobio_pathwalk *pw, int opening) {
  if (JOBIO_UNLIKELY(jobio_component_named(path, pw)))
    return jobio_component_other(slot, path, pw, jobio_pw_sqlite(jobio_pw_last(path, pw->len)), opening);
  return slot;
}
/* The same for a caller that keeps its walk in registers: the rare call that needs the walk's
 * address gets a copy, so the caller's own is never stored. */
static inline int jobio_component_walked_copy(int slot, const char *path, const struct jobio_pathwalk *pw, int opening) {
  if (JOBIO_LIKELY(!jobio_component_named(path, pw))) return slot;
  struct jobio_pathwalk w = *pw;
  return jobio_component_walked_as(slot, path, &w, opening);
}
/* a path whose name is not tested (a successful stat decided by the device of the thread's last
 * lookup: SQLite stats its journals' names only to learn whether they exist) */
static inline int jobio_component_unnamed(int slot, const char *path) {
  if (JOBIO_UNLIKELY(__atomic_load_n(&jobio_g.component_gate, __ATOMIC_RELAXED)) && slot >= 0) return jobio_component_other(slot, path, NULL, 0, 0);
  return slot;
}
/* any path (or NULL): its name is tested here (out of line: the calls that come here are not the
 * hot ones, which walk their path or hash it and test the name there) */
int jobio_component_slot(int slot, const char *path);
/*
 * A thread's last directory lookup: a path in the same directory, as the program wrote it, has the
 * same mount unless the file itself is a mount point. The directory is known by its hash and length
 * (base/pathwalk.h), so a hit costs one walk over the path, which the open needs for its hash anyway.
 */
struct jobio_dir_cache {
  uint32_t gen;     /* jobio_mount_gen when filled (0: empty) */
  uint32_t cwd_seq; /* the working directory's version when filled: a relative directory depends on it */
  int32_t mount;    /* the directory's mount (index in the table, -1: none) */
  int32_t slot;     /* its stats slot (jobio_mount_slot of mount) */
  uint32_t klen;    /* the directory as written, up to and with its last '/' */
  uint32_t abslen;  /* its absolute, normalised length without a final '/' (0: the root) */
  uint64_t dirhash; /* jobio_pathwalk.dirhash of the directory */
};
extern __thread struct jobio_dir_cache jobio_dir_cache __attribute__((tls_model("initial-exec")));
extern uint32_t jobio_mount_gen;
extern uint32_t jobio_cwd_seq;
extern uint64_t jobio_ix_lens[4]; /* bit L set: some mount point is L bytes long */

static inline int jobio_ix_has_len(size_t len) {
  return len < 256 && (__atomic_load_n(&jobio_ix_lens[len >> 6], __ATOMIC_RELAXED) >> (len & 63) & 1);
}
/* The path's last component is one that normalising keeps as it is (not "." or ".."). */
static inline int jobio_dir_plain(const char *path, const struct jobio_pathwalk *pw) {
  size_t llen = pw->len - pw->klen;
  const char *last = path + pw->klen;
  return llen > 0 && !(last[0] == '.' && (llen == 1 || (llen == 2 && last[1] == '.')));
}
/* The thread's cache entry when it answers for this walked path (absolute, or relative to the
 * working directory), else NULL. */
static inline struct jobio_dir_cache *jobio_dir_cached(const char *path, const struct jobio_pathwalk *pw) {
  struct jobio_dir_cache *c = &jobio_dir_cache;
  uint32_t cwd = path[0] == '/' ? 0 : __atomic_load_n(&jobio_cwd_seq, __ATOMIC_ACQUIRE);
  if (c->dirhash == pw->dirhash && c->klen == pw->klen && c->gen == __atomic_load_n(&jobio_mount_gen, __ATOMIC_ACQUIRE) &&
      c->cwd_seq == cwd && jobio_dir_plain(path, pw) && !jobio_ix_has_len((size_t)c->abslen + 1 + pw->len - pw->klen))
    return c;
  return NULL;
}
int jobio_mount_walked(const char *path, const struct jobio_pathwalk *pw);
/* jobio_slot_for(0, 0, AT_FDCWD, path, 0, 0) of a path walked already (path[0] != 0; absolute, or
 * relative to the working directory): the thread's last directory answers without a call. */
int jobio_slot_walked_slow(const char *path, const struct jobio_pathwalk *pw, int opening);
static inline int jobio_slot_walked(const char *path, const struct jobio_pathwalk *pw, int opening) {
  struct jobio_dir_cache *c = jobio_dir_cached(path, pw);
  if (JOBIO_LIKELY(c != NULL)) return jobio_component_walked_as(c->slot, path, pw, opening);
  return jobio_slot_walked_slow(path, pw, opening);
}
void jobio_cwd_changed(void);
void jobio_mounts_after_fork(void);

#pragma GCC visibility pop
#endif /* JOBIO_MOUNTS_H */
