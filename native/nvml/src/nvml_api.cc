#include "nvml_api.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>

namespace jobio {
namespace {

// ABI of the structs jobio reads (nvml.h nvmlUtilization_t, nvmlMemory_t).
struct Utilization {
  unsigned gpu;
  unsigned memory;
};
struct Memory {
  unsigned long long total, free, used;
};

using VoidFn = int (*)();
using CountFn = int (*)(unsigned*);
using HandleFn = int (*)(unsigned, void**);
using TextFn = int (*)(void*, char*, unsigned);
using U64Fn = int (*)(void*, unsigned long long*);
using U32Fn = int (*)(void*, unsigned*);
using KindU32Fn = int (*)(void*, int, unsigned*);
using UtilFn = int (*)(void*, Utilization*);
using MemoryFn = int (*)(void*, Memory*);
using ProcessesFn = int (*)(void*, unsigned*, void*);
using ErrorStringFn = const char* (*)(int);

constexpr unsigned kTextBuffer = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE = NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr int kPcieTx = 0, kPcieRx = 1;  // nvmlPcieUtilCounter_t
constexpr int kTemperatureGpu = 0;       // NVML_TEMPERATURE_GPU
// nvmlProcessInfo_t entries are 24 bytes, but R535 drivers write 32 (an extra u64) without a version
// bump: allocate for 32 and measure the stride the library really used.
constexpr size_t kMaxStride = 32;
constexpr unsigned char kSentinel = 0xAA;

}  // namespace

NvmlApi::~NvmlApi() {
  // The library stays mapped on purpose: a worker thread wedged inside it may still be running.
}

void* NvmlApi::Sym(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

std::string NvmlApi::ErrorString(int code) const {
  auto fn = reinterpret_cast<ErrorStringFn>(Sym("nvmlErrorString"));
  const char* text = fn ? fn(code) : nullptr;
  return text ? std::string(text) : "NVML error " + std::to_string(code);
}

NvmlInitResult NvmlApi::Init() {
  NvmlInitResult result;
  if (initialised_) return result;
  if (!handle_) {
    dlerror();
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char* why = dlerror();
      result.status = NvmlInitResult::Status::kNoLibrary;
      result.error = {"dlopen", 0, why ? why : "cannot load " + path_};
      return result;
    }
  }
  for (const char* required : {"nvmlInit_v2", "nvmlShutdown", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2"}) {
    if (!Sym(required)) {
      result.status = NvmlInitResult::Status::kError;
      result.error = {required, kNvmlFunctionNotFound, std::string(path_) + " lacks " + required};
      return result;
    }
  }
  int rc = reinterpret_cast<VoidFn>(Sym("nvmlInit_v2"))();
  if (rc != kNvmlSuccess) {
    result.status = NvmlInitResult::Status::kError;
    result.error = {"nvmlInit_v2", rc, ErrorString(rc)};
    return result;
  }
  initialised_ = true;
  return result;
}

void NvmlApi::Shutdown() {
  if (!initialised_) return;
  reinterpret_cast<VoidFn>(Sym("nvmlShutdown"))();  // 0 or UNINITIALIZED: both fine
  initialised_ = false;
}

NvmlSample NvmlApi::Sample(bool pcie, bool processes) {
  NvmlSample sample;
  if (!initialised_) {
    sample.errors.push_back({"nvmlInit_v2", 1, "NVML is not initialised"});
    return sample;
  }
  unsigned count = 0;
  int rc = reinterpret_cast<CountFn>(Sym("nvmlDeviceGetCount_v2"))(&count);
  if (rc != kNvmlSuccess) {
    sample.errors.push_back({"nvmlDeviceGetCount_v2", rc, ErrorString(rc)});
    return sample;
  }
  for (unsigned i = 0; i < count; ++i) {
    NvmlDeviceSample dev;
    dev.index = i;
    // Runs one NVML call by name; a missing symbol is FUNCTION_NOT_FOUND (treated as not supported).
    auto call = [&](const char* name, auto invoke) -> bool {
      void* fn = Sym(name);
      int code = fn ? invoke(fn) : kNvmlFunctionNotFound;
      if (code == kNvmlSuccess) return true;
      dev.errors.push_back({name, code, fn ? ErrorString(code) : std::string("symbol not found")});
      return false;
    };
    void* device = nullptr;
    if (!call("nvmlDeviceGetHandleByIndex_v2", [&](void* fn) { return reinterpret_cast<HandleFn>(fn)(i, &device); })) {
      sample.devices.push_back(std::move(dev));
      continue;
    }
    char text[kTextBuffer];
    if (call("nvmlDeviceGetUUID", [&](void* fn) { return reinterpret_cast<TextFn>(fn)(device, text, kTextBuffer); })) dev.uuid = std::string(text, strnlen(text, kTextBuffer));
    if (call("nvmlDeviceGetName", [&](void* fn) { return reinterpret_cast<TextFn>(fn)(device, text, kTextBuffer); })) dev.name = std::string(text, strnlen(text, kTextBuffer));
    unsigned long long u64 = 0;
    if (call("nvmlDeviceGetTotalEnergyConsumption", [&](void* fn) { return reinterpret_cast<U64Fn>(fn)(device, &u64); })) dev.energy_mj = u64;
    Utilization util{};
    if (call("nvmlDeviceGetUtilizationRates", [&](void* fn) { return reinterpret_cast<UtilFn>(fn)(device, &util); })) dev.utilization_gpu = util.gpu;
    Memory memory{};
    if (call("nvmlDeviceGetMemoryInfo", [&](void* fn) { return reinterpret_cast<MemoryFn>(fn)(device, &memory); })) {
      dev.memory_total = memory.total;
      dev.memory_used = memory.used;
    }
    unsigned u32 = 0;
    if (call("nvmlDeviceGetTemperature", [&](void* fn) { return reinterpret_cast<KindU32Fn>(fn)(device, kTemperatureGpu, &u32); })) dev.temperature_c = u32;
    if (call("nvmlDeviceGetPowerUsage", [&](void* fn) { return reinterpret_cast<U32Fn>(fn)(device, &u32); })) dev.power_mw = u32;
    // Each throughput query samples for about 20 ms inside the driver, hence optional.
    if (pcie) {
      if (call("nvmlDeviceGetPcieThroughput", [&](void* fn) { return reinterpret_cast<KindU32Fn>(fn)(device, kPcieTx, &u32); })) dev.pcie_tx_kbps = u32;
      if (call("nvmlDeviceGetPcieThroughput", [&](void* fn) { return reinterpret_cast<KindU32Fn>(fn)(device, kPcieRx, &u32); })) dev.pcie_rx_kbps = u32;
    }
    if (processes) ReadProcesses(device, dev);
    sample.devices.push_back(std::move(dev));
  }
  return sample;
}

void NvmlApi::ReadProcesses(void* device, NvmlDeviceSample& out) {
  const char* name = "nvmlDeviceGetComputeRunningProcesses_v3";
  auto fn = reinterpret_cast<ProcessesFn>(Sym(name));
  if (!fn) {
    out.errors.push_back({name, kNvmlFunctionNotFound, "symbol not found"});
    return;
  }
  // Two-call protocol: ask for the count, then read with slack (processes may start meanwhile).
  unsigned count = 0;
  int rc = fn(device, &count, nullptr);
  if (rc == kNvmlSuccess && count == 0) {
    out.pids = std::vector<unsigned>();
    return;
  }
  for (int attempt = 0; attempt < 3 && (rc == kNvmlSuccess || rc == kNvmlInsufficientSize); ++attempt) {
    unsigned capacity = count + 8;
    std::vector<unsigned char> buffer(static_cast<size_t>(capacity) * kMaxStride, kSentinel);
    count = capacity;
    rc = fn(device, &count, buffer.data());
    if (rc == kNvmlInsufficientSize) continue;
    if (rc != kNvmlSuccess) break;
    std::vector<unsigned> pids;
    if (count > 0) {
      // The stride the library used: the last byte it wrote, over the entry count.
      size_t written = buffer.size();
      while (written > 0 && buffer[written - 1] == kSentinel) --written;
      size_t stride = written > static_cast<size_t>(count) * 24 ? kMaxStride : 24;
      for (unsigned k = 0; k < count; ++k) {
        uint32_t pid;
        std::memcpy(&pid, buffer.data() + k * stride, sizeof pid);
        pids.push_back(pid);
      }
    }
    out.pids = std::move(pids);
    return;
  }
  out.errors.push_back({name, rc, ErrorString(rc)});
}

}  // namespace jobio
