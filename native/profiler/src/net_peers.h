/* Network peers (net_peers.c, with the pseudo mounts of mounts.c): socket I/O per peer address with
 * JOBIO_NETWORK=1; the first JOBIO_NET_PEERS peers of a process get a slot of their own. */
#ifndef JOBIO_NET_PEERS_H
#define JOBIO_NET_PEERS_H
#include <sys/socket.h>

#include "common.h"
#include "hot.h"

#pragma GCC visibility push(hidden)

#define JOBIO_NET_PEERS 16 /* peer addresses with a stats slot of their own, per process; later ones fold */
int jobio_peer_slot(uint64_t key, void (*name)(const void *arg, char *buf, size_t cap), const void *arg);
int jobio_net_addr_slot(const struct sockaddr *a, socklen_t len);
int jobio_net_fd_slot(int fd);
uint64_t jobio_net_folded(void);
void jobio_net_after_fork(void);
void jobio_count_net(struct jobio_ctx *c, struct jobio_mstats *m, int dir, int64_t r, uint64_t est);

#pragma GCC visibility pop
#endif /* JOBIO_NET_PEERS_H */
