/*
 * What every file of the library shares: the system headers, the wire format, the attribute
 * macros and the fixed limits. Nothing here is exported: the library is built with
 * -fvisibility=hidden and a version script that exports only the symbols of symbols.def.
 */
#ifndef JOBIO_COMMON_H
#define JOBIO_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <aio.h>
#include <dirent.h>
#include <linux/aio_abi.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "../../include/jobio_protocol.h"

#define JOBIO_EXPORT __attribute__((visibility("default")))
#define JOBIO_LIKELY(x) __builtin_expect(!!(x), 1)
#define JOBIO_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* hot-path helpers: always inlined (the compiler would otherwise outline them past a few uses) */
#define JOBIO_HOT static inline __attribute__((always_inline))
/* a parenthesised parameter or argument list, without its parentheses (wrapper-defining macros) */
#define JOBIO_UNPAREN(...) __VA_ARGS__

/* ---- limits ---- */
#define JOBIO_MAX_SLOTS 64     /* mounts with activity per process (stats slots) */
#define JOBIO_MAX_MOUNTS 1024  /* mountinfo entries kept */
#define JOBIO_FD_MAX (1u << 20) /* descriptors tracked in the flat table */
#define JOBIO_STAT_BITS 12
#define JOBIO_STAT_TABLE 4096  /* pending successful stats (2^JOBIO_STAT_BITS) */
#define JOBIO_STAT_PROBE 8
#define JOBIO_HIGH_FD 1000     /* the profiler's own descriptors are moved at or above this */

#endif /* JOBIO_COMMON_H */
