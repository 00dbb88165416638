#include "children_usage.h"

#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace jobio {

Napi::Value ChildrenUsage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 0) throw Napi::TypeError::New(env, "childrenUsage() takes no arguments");
  struct rusage usage;
  if (getrusage(RUSAGE_CHILDREN, &usage) != 0) {
    throw Napi::Error::New(env, std::string("getrusage(RUSAGE_CHILDREN): ") + std::strerror(errno));
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("userMicros", static_cast<double>(usage.ru_utime.tv_sec) * 1e6 + static_cast<double>(usage.ru_utime.tv_usec));
  out.Set("systemMicros", static_cast<double>(usage.ru_stime.tv_sec) * 1e6 + static_cast<double>(usage.ru_stime.tv_usec));
  // Linux reports ru_maxrss in KiB: the largest resident set of any single reaped descendant.
  out.Set("maxRssBytes", static_cast<double>(usage.ru_maxrss) * 1024.0);
  return out;
}

}  // namespace jobio
