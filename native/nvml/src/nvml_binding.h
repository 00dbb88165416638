// The JS class `Nvml`: one loaded NVML library. Every method returns a Promise and runs its NVML
// calls in a Napi::AsyncWorker (libuv pool thread), never on the event loop. State lives in the
// instance (a shared NvmlApi the workers keep alive), not in static globals.
#pragma once

#include <napi.h>

#include <memory>

#include "nvml_api.h"

namespace jobio {

class Nvml : public Napi::ObjectWrap<Nvml> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit Nvml(const Napi::CallbackInfo& info);

 private:
  Napi::Value InitLibrary(const Napi::CallbackInfo& info);
  Napi::Value Sample(const Napi::CallbackInfo& info);
  Napi::Value Shutdown(const Napi::CallbackInfo& info);

  std::shared_ptr<NvmlApi> api_;
};

}  // namespace jobio
