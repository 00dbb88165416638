// getrusage(RUSAGE_CHILDREN) for `jobio run`: the CPU time and peak RSS of the waited-for children
// (Node exposes only its own usage). Separate concern from the socket server, same addon.
#ifndef JOBIO_CHILDREN_USAGE_H
#define JOBIO_CHILDREN_USAGE_H

#include <napi.h>

namespace jobio {

/** childrenUsage() -> { userMicros, systemMicros, maxRssBytes } of all children reaped so far. */
Napi::Value ChildrenUsage(const Napi::CallbackInfo& info);

}  // namespace jobio

#endif
