// Open-file-description locks (fcntl F_OFD_SETLK) for `jobio run --output`: several runs given the
// same file (mpirun -np 4 jobio run -o out-%h.jsonl) find each other, so only the first truncates it
// and the others append. Node has no file locks. Separate concern from the socket server, same addon.
#ifndef JOBIO_FILE_LOCK_H
#define JOBIO_FILE_LOCK_H

#include <napi.h>

namespace jobio {

/**
 * lockFile(fd, kind) where kind is "write" (exclusive) or "read" (shared), on the whole file, never
 * waiting: "locked", "busy" (another open file holds a conflicting lock) or "unsupported" (the file
 * system has no locks, e.g. Lustre mounted noflock). Taking "read" over our own "write" converts the
 * lock atomically. The lock goes with the last descriptor of the open file (the run's exit).
 */
Napi::Value LockFile(const Napi::CallbackInfo& info);

}  // namespace jobio

#endif
