// The job_stats line addon: scanLines() for the job_stats scanner (exporter/src/parsers/lustre-jobstats.ts),
// whose per-byte loop in JavaScript cost several times reading the file.
#include <napi.h>

#include "counter-lines.h"

namespace {

/**
 * scanLines(bytes: Uint8Array, start: number, end: number, out: Float64Array): number
 * Records of the lines of bytes[start, end) into out (11 numbers each, see counter-lines.h), as many as
 * fit; returns how many. A full `out` may have stopped early: the next call starts after the line of
 * the last record.
 */
Napi::Value ScanLines(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 4 || !info[0].IsTypedArray() || !info[1].IsNumber() || !info[2].IsNumber() || !info[3].IsTypedArray()) {
    throw Napi::TypeError::New(env, "scanLines(bytes: Uint8Array, start: number, end: number, out: Float64Array)");
  }
  Napi::TypedArray bytes_array = info[0].As<Napi::TypedArray>();
  Napi::TypedArray out_array = info[3].As<Napi::TypedArray>();
  if (bytes_array.TypedArrayType() != napi_uint8_array || out_array.TypedArrayType() != napi_float64_array) {
    throw Napi::TypeError::New(env, "scanLines: bytes must be a Uint8Array and out a Float64Array");
  }
  Napi::Uint8Array bytes = bytes_array.As<Napi::Uint8Array>();
  Napi::Float64Array out = out_array.As<Napi::Float64Array>();
  const double start = info[1].As<Napi::Number>().DoubleValue();
  const double end = info[2].As<Napi::Number>().DoubleValue();
  const size_t length = bytes.ElementLength();
  if (!(start >= 0 && start <= end && end <= static_cast<double>(length))) throw Napi::RangeError::New(env, "scanLines: need 0 <= start <= end <= bytes.length");
  const size_t capacity = out.ElementLength() / jobio::kRecordFields;
  if (capacity == 0) throw Napi::RangeError::New(env, "scanLines: out holds no record");
  const size_t records = jobio::ScanLines(bytes.Data(), static_cast<size_t>(start), static_cast<size_t>(end), out.Data(), capacity, env.GetInstanceData<jobio::NameTable>());
  return Napi::Number::New(env, static_cast<double>(records));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // One name table per environment (main thread, each worker), freed with it.
  env.SetInstanceData(new jobio::NameTable());
  exports.Set("scanLines", Napi::Function::New(env, ScanLines, "scanLines"));
  exports.Set("recordFields", Napi::Number::New(env, jobio::kRecordFields));
  return exports;
}

}  // namespace

NODE_API_MODULE(jobio_jobscan, Init)
