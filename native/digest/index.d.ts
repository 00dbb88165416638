// Typed surface of the jobio digest addon (native/digest).

/** XXH64 of the bytes with a 64-bit seed (the reference algorithm: xxhash's XXH64). */
export function xxh64(bytes: Uint8Array, seed: bigint): bigint;
