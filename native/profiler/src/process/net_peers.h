/* Network peers (net_peers.c, with the pseudo mounts of mounts.c): socket I/O per peer address with
 * JOBIO_NETWORK=1; the first JOBIO_NET_PEERS peers of a process get a slot of their own. */
#ifndef JOBIO_NET_PEERS_H
#define JOBIO_NET_PEERS_H
#include <sys/socket.h>

#include "base/common.h"

#pragma GCC visibility push(hidden)

int jobio_net_addr_slot(const struct sockaddr *a, socklen_t len);
int jobio_net_fd_slot(int fd);
uint64_t jobio_net_folded(void);
void jobio_net_after_fork(void);

#pragma GCC visibility pop
#endif /* JOBIO_NET_PEERS_H */
