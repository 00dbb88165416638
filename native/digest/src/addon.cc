// The digest addon: xxh64(bytes, seed) for the job_stats reads (exporter/src/lustre/file-digests.ts),
// whose cost per byte must stay a small part of reading the file at all.
#include <napi.h>

#include "xxh64.h"

namespace {

/** xxh64(bytes: Uint8Array, seed: bigint): bigint. */
Napi::Value Xxh64(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsTypedArray() || !info[1].IsBigInt()) {
    throw Napi::TypeError::New(env, "xxh64(bytes: Uint8Array, seed: bigint)");
  }
  Napi::TypedArray array = info[0].As<Napi::TypedArray>();
  if (array.TypedArrayType() != napi_uint8_array) throw Napi::TypeError::New(env, "xxh64: bytes must be a Uint8Array");
  Napi::Uint8Array bytes = array.As<Napi::Uint8Array>();
  bool lossless = false;
  uint64_t seed = info[1].As<Napi::BigInt>().Uint64Value(&lossless);
  return Napi::BigInt::New(env, jobio::Xxh64(bytes.Data(), bytes.ByteLength(), seed));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("xxh64", Napi::Function::New(env, Xxh64, "xxh64"));
  return exports;
}

}  // namespace

NODE_API_MODULE(jobio_digest, Init)
