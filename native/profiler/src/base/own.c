/* The profiler's own descriptors, told to the descriptor table that listens (see own.h). */
#include "base/own.h"

#include <stddef.h>

static void (*jobio_own_listener)(int fd, enum jobio_own_event event);

void jobio_own_listen(void (*listener)(int fd, enum jobio_own_event event)) { jobio_own_listener = listener; }

void jobio_own_event(int fd, enum jobio_own_event event) {
  if (jobio_own_listener) jobio_own_listener(fd, event);
}
