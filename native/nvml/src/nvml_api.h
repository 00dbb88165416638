// The NVML functions jobio uses, resolved with dlopen/dlsym at run time (no link-time dependency on
// libnvidia-ml, so one build loads on hosts without a GPU). Plain C++, no N-API: the workers call
// these on libuv threads. Types are declared here from NVML's documented ABI (x86-64 SysV) rather
// than from nvml.h, which is not installed on build hosts without the CUDA toolkit.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace jobio {

// nvmlReturn_t values used by name (nvml.h enum nvmlReturn_enum).
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlNotSupported = 3;
constexpr int kNvmlInsufficientSize = 7;
constexpr int kNvmlFunctionNotFound = 13;

struct NvmlCallError {
  std::string call;
  int code;
  std::string message;
};

struct NvmlDeviceSample {
  unsigned index = 0;
  std::optional<std::string> uuid, name;
  std::optional<unsigned long long> energy_mj, memory_total, memory_used;
  std::optional<unsigned> utilization_gpu, temperature_c, power_mw, pcie_tx_kbps, pcie_rx_kbps;
  std::optional<std::vector<unsigned>> pids;
  std::vector<NvmlCallError> errors;
};

struct NvmlSample {
  std::vector<NvmlDeviceSample> devices;
  std::vector<NvmlCallError> errors;  // failures before any device could be read (count)
};

struct NvmlInitResult {
  enum class Status { kOk, kNoLibrary, kError } status = Status::kOk;
  NvmlCallError error;
};

/** One loaded library. Every method may block (it calls NVML): call them off the event loop only. */
class NvmlApi {
 public:
  explicit NvmlApi(std::string library_path) : path_(std::move(library_path)) {}
  ~NvmlApi();
  NvmlApi(const NvmlApi&) = delete;
  NvmlApi& operator=(const NvmlApi&) = delete;

  NvmlInitResult Init();
  NvmlSample Sample(bool pcie, bool processes);
  void Shutdown();
  /** Serialises NVML use: a worker that finds it taken reports "busy" instead of queueing behind a hung call. */
  std::mutex& busy() { return busy_; }

 private:
  using Fn = void*;
  std::string ErrorString(int code) const;
  void* Sym(const char* name) const;
  void ReadProcesses(void* device, NvmlDeviceSample& out);

  std::string path_;
  void* handle_ = nullptr;
  bool initialised_ = false;
  std::mutex busy_;
};

}  // namespace jobio
