/*
 * Transport (transport.c): the non-blocking SOCK_SEQPACKET connection to the exporter. Nothing
 * waits: a missing listener, a full socket or a lost descriptor drops the frame and counts it.
 * Called under the flush lock.
 */
#ifndef JOBIO_TRANSPORT_H
#define JOBIO_TRANSPORT_H
#include "base/common.h"

#pragma GCC visibility push(hidden)

void jobio_transport_ready(void);                 /* re-validate the socket, or connect */
void jobio_transport_send(const void *frame, size_t len);
uint64_t jobio_transport_seq(void);               /* the sequence number of the next frame sent */
uint64_t jobio_dropped(void);                     /* frames dropped so far */
void jobio_transport_forget(int fd);
void jobio_transport_after_fork(void);

#pragma GCC visibility pop
#endif /* JOBIO_TRANSPORT_H */
