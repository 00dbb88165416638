// XXH64 (Yann Collet's xxHash, 64-bit variant, as its specification describes it): a seeded hash that
// runs at memory speed, for telling whether a file's bytes changed since the last read.
#pragma once
#include <cstddef>
#include <cstdint>

namespace jobio {

uint64_t Xxh64(const uint8_t* data, size_t length, uint64_t seed);

}  // namespace jobio
