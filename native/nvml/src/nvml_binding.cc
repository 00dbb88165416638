#include "nvml_binding.h"

#include <functional>
#include <utility>

namespace jobio {
namespace {

Napi::Object ErrorObject(Napi::Env env, const NvmlCallError& e) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("call", e.call);
  o.Set("code", e.code);
  o.Set("message", e.message);
  return o;
}

Napi::Array Errors(Napi::Env env, const std::vector<NvmlCallError>& errors) {
  Napi::Array out = Napi::Array::New(env, errors.size());
  for (size_t i = 0; i < errors.size(); ++i) out.Set(i, ErrorObject(env, errors[i]));
  return out;
}

template <typename T>
void SetIf(Napi::Object& o, const char* key, const std::optional<T>& v) {
  if (v) o.Set(key, static_cast<double>(*v));
}

/**
 * Runs `work` on a pool thread and settles a Promise with `convert(result)`. The NVML mutex is only
 * tried, never waited for: a call queued behind a wedged one would wedge a second pool thread.
 */
template <typename R>
class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, std::shared_ptr<NvmlApi> api, std::function<R(NvmlApi&)> work, std::function<Napi::Value(Napi::Env, const R&)> convert)
      : Napi::AsyncWorker(env, "jobio:nvml"), deferred_(Napi::Promise::Deferred::New(env)), api_(std::move(api)), work_(std::move(work)), convert_(std::move(convert)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    std::unique_lock<std::mutex> lock(api_->busy(), std::try_to_lock);
    if (!lock.owns_lock()) {
      SetError("NVML busy: an earlier call has not returned");
      return;
    }
    result_ = work_(*api_);
  }
  void OnOK() override { deferred_.Resolve(convert_(Env(), result_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<NvmlApi> api_;
  std::function<R(NvmlApi&)> work_;
  std::function<Napi::Value(Napi::Env, const R&)> convert_;
  R result_{};
};

Napi::Value InitResultValue(Napi::Env env, const NvmlInitResult& r) {
  Napi::Object o = Napi::Object::New(env);
  const char* status = r.status == NvmlInitResult::Status::kOk ? "ok" : r.status == NvmlInitResult::Status::kNoLibrary ? "no-library" : "error";
  o.Set("status", status);
  if (r.status != NvmlInitResult::Status::kOk) o.Set("error", ErrorObject(env, r.error));
  return o;
}

Napi::Value SampleValue(Napi::Env env, const NvmlSample& s) {
  Napi::Object o = Napi::Object::New(env);
  Napi::Array devices = Napi::Array::New(env, s.devices.size());
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const NvmlDeviceSample& d = s.devices[i];
    Napi::Object dev = Napi::Object::New(env);
    dev.Set("index", d.index);
    if (d.uuid) dev.Set("uuid", *d.uuid);
    if (d.name) dev.Set("name", *d.name);
    SetIf(dev, "energyMillijoules", d.energy_mj);
    SetIf(dev, "memoryTotalBytes", d.memory_total);
    SetIf(dev, "memoryUsedBytes", d.memory_used);
    SetIf(dev, "utilizationPercent", d.utilization_gpu);
    SetIf(dev, "temperatureCelsius", d.temperature_c);
    SetIf(dev, "powerMilliwatts", d.power_mw);
    SetIf(dev, "pcieTxKilobytesPerSecond", d.pcie_tx_kbps);
    SetIf(dev, "pcieRxKilobytesPerSecond", d.pcie_rx_kbps);
    if (d.pids) {
      Napi::Array pids = Napi::Array::New(env, d.pids->size());
      for (size_t k = 0; k < d.pids->size(); ++k) pids.Set(k, (*d.pids)[k]);
      dev.Set("pids", pids);
    }
    dev.Set("errors", Errors(env, d.errors));
    devices.Set(i, dev);
  }
  o.Set("devices", devices);
  o.Set("errors", Errors(env, s.errors));
  return o;
}

template <typename R>
Napi::Value Queue(Napi::Env env, std::shared_ptr<NvmlApi> api, std::function<R(NvmlApi&)> work, std::function<Napi::Value(Napi::Env, const R&)> convert) {
  auto* worker = new PromiseWorker<R>(env, std::move(api), std::move(work), std::move(convert));
  Napi::Promise promise = worker->Promise();
  worker->Queue();  // the worker deletes itself after OnOK/OnError
  return promise;
}

}  // namespace

void Nvml::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Nvml",
                                    {InstanceMethod("init", &Nvml::InitLibrary), InstanceMethod("sample", &Nvml::Sample), InstanceMethod("shutdown", &Nvml::Shutdown)});
  exports.Set("Nvml", ctor);
}

Nvml::Nvml(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Nvml>(info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "new Nvml(libraryPath): libraryPath must be a string");
  std::string path = info[0].As<Napi::String>().Utf8Value();
  if (path.empty()) throw Napi::TypeError::New(env, "new Nvml(libraryPath): libraryPath must not be empty");
  if (path.find('\0') != std::string::npos) throw Napi::TypeError::New(env, "new Nvml(libraryPath): libraryPath must not contain NUL");
  api_ = std::make_shared<NvmlApi>(std::move(path));
}

Napi::Value Nvml::InitLibrary(const Napi::CallbackInfo& info) {
  if (info.Length() != 0) throw Napi::TypeError::New(info.Env(), "nvml.init() takes no arguments");
  return Queue<NvmlInitResult>(info.Env(), api_, [](NvmlApi& api) { return api.Init(); }, InitResultValue);
}

Napi::Value Nvml::Sample(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "nvml.sample(options): options must be an object { pcie: boolean, processes: boolean }");
  Napi::Object options = info[0].As<Napi::Object>();
  Napi::Value pcie = options.Get("pcie");
  Napi::Value processes = options.Get("processes");
  if (!pcie.IsBoolean()) throw Napi::TypeError::New(env, "nvml.sample(options): options.pcie must be a boolean");
  if (!processes.IsBoolean()) throw Napi::TypeError::New(env, "nvml.sample(options): options.processes must be a boolean");
  bool p = pcie.As<Napi::Boolean>().Value();
  bool q = processes.As<Napi::Boolean>().Value();
  return Queue<NvmlSample>(env, api_, [p, q](NvmlApi& api) { return api.Sample(p, q); }, SampleValue);
}

Napi::Value Nvml::Shutdown(const Napi::CallbackInfo& info) {
  if (info.Length() != 0) throw Napi::TypeError::New(info.Env(), "nvml.shutdown() takes no arguments");
  return Queue<bool>(info.Env(), api_, [](NvmlApi& api) { api.Shutdown(); return true; }, [](Napi::Env env, const bool&) -> Napi::Value { return env.Undefined(); });
}

}  // namespace jobio
