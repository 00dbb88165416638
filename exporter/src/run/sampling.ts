// Duration sampling chosen from the cost of reading the clock (`--sample-every 0`, Mistral's
// `duration-sampling.sample: 0`): where reading the clock is cheap every call is timed; where it is
// dear one call in N is, so that timing costs about as much as on a cheap clock; and where it costs
// more than a microsecond with no limit given, at most 1000 timed calls a second.

/** A clock read that costs at most this is cheap: every call is timed. */
export const CHEAP_CLOCK_NS = 100;
/** Above this a clock read is slow: with no limit given, 1000 timed calls a second at most. */
export const SLOW_CLOCK_NS = 1000;
export const SLOW_CLOCK_LIMIT = 1000;

export interface Sampling {
  readonly sampleEvery: number;
  readonly sampleMaxPerSec: number;
}

/** The sampling to use: the given figures, with a 0 factor (and a 0 limit on a slow clock) chosen from the clock's cost. */
export function chooseSampling(given: Sampling, clockNs: number): Sampling {
  if (given.sampleEvery > 0) return given;
  const sampleEvery = clockNs <= CHEAP_CLOCK_NS ? 1 : Math.ceil(clockNs / CHEAP_CLOCK_NS);
  const sampleMaxPerSec = given.sampleMaxPerSec === 0 && clockNs > SLOW_CLOCK_NS ? SLOW_CLOCK_LIMIT : given.sampleMaxPerSec;
  return { sampleEvery, sampleMaxPerSec };
}

/**
 * The cost of one read of the monotonic clock in ns (performance.now, the cheapest clock call Node
 * has: ~40 ns with a vDSO clock): the cheapest of many short batches, so preemption on a busy node
 * and the first, unoptimised batches do not count. Stops at the first batch that shows a cheap clock
 * (a few ms); a dear clock is measured over every batch.
 */
export function measureClockNs(batches = 200, reads = 500): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let b = 0; b < batches && best > CHEAP_CLOCK_NS; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < reads; i++) sink += performance.now();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / reads);
  }
  return sink >= 0 ? best : best; // (sink read: the loop is not optimised away)
}
