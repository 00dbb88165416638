// Exact unsigned 64-bit arithmetic for Lustre counters, cheap in the common case.
//
// Lustre prints u64 counters; `sum` and `sumsq` can pass 2^53, where a JavaScript number stops being
// exact. Converting every value to BigInt costs time and memory on 45 MB files, so a U64 is a plain
// number while it is a safe integer and a bigint only above Number.MAX_SAFE_INTEGER. Every function
// keeps that normal form, so `typeof v === 'number'` is the fast path everywhere.
export type U64 = number | bigint;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Brings a bigint back to a number when it fits exactly. */
export function normalizeU64(value: bigint): U64 {
  return value <= MAX_SAFE ? Number(value) : value;
}

/** Parses a decimal string of digits exactly (the caller has checked the characters). */
export function u64FromDigits(digits: string): U64 {
  return digits.length <= 15 ? Number(digits) : normalizeU64(BigInt(digits));
}

export function u64Add(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (sum <= Number.MAX_SAFE_INTEGER) return sum;
  }
  return normalizeU64(BigInt(a) + BigInt(b));
}

/** a − b for a ≥ b (callers test with u64Less first). */
export function u64Sub(a: U64, b: U64): U64 {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return normalizeU64(BigInt(a) - BigInt(b));
}

export function u64Less(a: U64, b: U64): boolean {
  // Mixed comparisons between number and bigint are exact in JavaScript.
  return a < b;
}

/** The float64 used at exposition time: the only lossy step. */
export function u64ToNumber(a: U64): number {
  return typeof a === 'number' ? a : Number(a);
}
