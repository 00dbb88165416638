/*
 * The profiler's own descriptors (own.c): the error log's file (log.c) and the exporter socket
 * (transport/transport.c) must stay invisible to the program's calls, which is the descriptor
 * table's business (process/fdtab.c, a layer above the code that opens them). The table listens
 * here once it exists: the openers tell what happened to a descriptor of theirs, and no call runs up
 * the layers by name. Before the table exists nothing is marked (nothing could be counted yet).
 */
#ifndef JOBIO_OWN_H
#define JOBIO_OWN_H

#pragma GCC visibility push(hidden)

enum jobio_own_event {
  JOBIO_OWN_OPENED,   /* a descriptor of ours was opened */
  JOBIO_OWN_CLOSED,   /* we closed it */
  JOBIO_OWN_REPLACED, /* the program closed or replaced it behind our back: forget it if still marked ours */
};
void jobio_own_listen(void (*listener)(int fd, enum jobio_own_event event));
void jobio_own_event(int fd, enum jobio_own_event event);

#pragma GCC visibility pop
#endif /* JOBIO_OWN_H */
