/*
 * Credential changes: glibc applies setuid, setgid, seteuid, setegid, setreuid, setregid,
 * setresuid, setresgid and setgroups (and initgroups, which calls setgroups inside glibc) to every
 * thread of the process, and aborts the process when another thread's change fails where the
 * caller's succeeded. Threads' capabilities can differ (capset and PR_SET_KEEPCAPS are per thread):
 * a program that becomes another user keeping its capabilities, raises its own thread's again and
 * then changes its groups (as setpriv does) would have the flush thread's change refused and be
 * killed. So before any of them the flush thread is ended, for good (process/flusher.c); the call
 * is then passed on untouched.
 */
#include <grp.h>

#include "base/real.h"
#include "process/flusher.h"

#define JOBIO_SETXID(name, params, args) \
  JOBIO_EXPORT int name params {         \
    jobio_flusher_stop();                \
    return REAL(name) args;              \
  }
JOBIO_SETXID(setuid, (uid_t u), (u))
JOBIO_SETXID(setgid, (gid_t g), (g))
JOBIO_SETXID(seteuid, (uid_t u), (u))
JOBIO_SETXID(setegid, (gid_t g), (g))
JOBIO_SETXID(setreuid, (uid_t r, uid_t e), (r, e))
JOBIO_SETXID(setregid, (gid_t r, gid_t e), (r, e))
JOBIO_SETXID(setresuid, (uid_t r, uid_t e, uid_t s), (r, e, s))
JOBIO_SETXID(setresgid, (gid_t r, gid_t e, gid_t s), (r, e, s))
JOBIO_SETXID(setgroups, (size_t n, const gid_t *list), (n, list))
JOBIO_SETXID(initgroups, (const char *user, gid_t g), (user, g))
