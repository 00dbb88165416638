// Registers the NVML addon's exports; each concern lives in its own .h/.cc pair.
#include <napi.h>

#include "nvml_binding.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  jobio::Nvml::Init(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(jobio_nvml, Init)
