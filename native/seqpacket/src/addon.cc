// Registers the receiver addon's exports; each concern lives in its own .h/.cc pair.
#include <napi.h>

#include "children_usage.h"
#include "file_lock.h"
#include "seqpacket_server.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  jobio::SeqpacketServer::Init(env, exports);
  exports.Set("childrenUsage", Napi::Function::New(env, jobio::ChildrenUsage, "childrenUsage"));
  exports.Set("lockFile", Napi::Function::New(env, jobio::LockFile, "lockFile"));
  return exports;
}

}  // namespace

NODE_API_MODULE(jobio_seqpacket, Init)
