// A fixed pseudo-random sequence for tests that walk many cases: the same seed gives the same cases,
// so a failure repeats. xorshift32, its 24 high bits.
export function fixedSequence(seed: number): () => number {
  let s = seed;
  return (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 8) & 0xffffff;
  };
}
