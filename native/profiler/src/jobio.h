/*
 * jobio profiler: every internal header, for the files that use most of them. Each header holds
 * one concern and names the file that defines it; the hot path (inline counting and
 * classification) is hot.h. Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script that exports only the symbols of symbols.def.
 *
 * Rules for code in this library (docs/architecture.md "Rules of conduct"):
 *   - never call a libc I/O function by name (it would bind to our own wrapper): use REAL(name) or
 *     the raw jobio_sys_* helpers (syscall(2));
 *   - the wrapper path takes no lock, calls no malloc and no stdio, and leaves errno untouched;
 *     slow paths (unknown fd, open, flush) save and restore errno and run with the per-thread guard
 *     set, so any wrapped call they make (or that dlsym makes) is forwarded uncounted;
 *   - nothing ever calls exit/abort or blocks on the exporter.
 */
#ifndef JOBIO_H
#define JOBIO_H

#include "common.h"
#include "exit.h"
#include "fdtab.h"
#include "flush.h"
#include "fork.h"
#include "hot.h"
#include "log.h"
#include "mounts.h"
#include "net_peers.h"
#include "real.h"
#include "sampling.h"
#include "state.h"
#include "stattab.h"
#include "sys.h"
#include "thread.h"
#include "timebound.h"
#include "transport.h"

#endif /* JOBIO_H */
