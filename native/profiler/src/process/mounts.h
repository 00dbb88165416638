/* Mounts (mounts.c): the mount of a file, and the stats slot of each mount with activity. */
#ifndef JOBIO_MOUNTS_H
#define JOBIO_MOUNTS_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

#define JOBIO_NET_PEERS 16 /* peer addresses with a stats slot of their own, per process; later ones fold */
/* jobio_slot_for's answer for a path relative to a directory descriptor that its device does not
 * decide: the descriptor's mount (jobio_path_slot, fdtab.c, knows the descriptors) */
#define JOBIO_SLOT_AT_DIRFD (-4)

/*
 * A thread's last directory lookup (kept in its block, process/thread.h): a path in the same
 * directory, as the program wrote it, has the same mount unless the file itself is a mount point.
 */
struct jobio_dir_cache {
  uint32_t gen;     /* jobio_mount_gen when filled (0: empty) */
  uint32_t cwd_seq; /* the working directory's version when filled: a relative directory depends on it */
  int32_t mount;    /* the directory's mount (index in the table) */
  uint16_t len;     /* the directory as written, up to and with its last '/': dir[0, len) */
  uint16_t abslen;  /* its absolute, normalised length without a final '/' (0: the root) */
  char dir[240];
};

void jobio_mounts_init(void);
int jobio_slot_for(int have_dev, uint64_t dev, int dirfd, const char *path, int have_mode, mode_t mode);
int jobio_slot_for_fd(int fd, const struct stat *st);
int jobio_network_slot(void);
int jobio_peer_slot(uint64_t key, void (*name)(const void *arg, char *buf, size_t cap), const void *arg);
int jobio_slot_mount(int slot, const char **path, const char **fstype, const char **source);
void jobio_cwd_changed(void);
void jobio_mounts_after_fork(void);

extern uint32_t jobio_mount_gen;

#pragma GCC visibility pop
#endif /* JOBIO_MOUNTS_H */
