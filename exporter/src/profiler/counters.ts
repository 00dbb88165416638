// The cumulative figures of one mount frame flattened into one Float64Array, so that deltas, sums
// and resets are plain element-wise loops instead of code per field. Index helpers name each slot.
import { CALL_TYPES, CLASSES, DIRECTIONS, POW2_BINS, SIZE_BINS, STDIO_FNS, WIRE_REASONS } from '../parsers/profiler-wire.js';
import type { MountRecord } from '../parsers/profiler-record.js';

const NC = CALL_TYPES.length;
const NK = CLASSES.length;
const ND = DIRECTIONS.length;
const NB = SIZE_BINS.length;

const CALLS = 0;
const TIME = CALLS + NC * NK;
const SAMPLED = TIME + NC * NK;
const SIZED_CALLS = SAMPLED + NC;
const SIZED_BYTES = SIZED_CALLS + ND * NB;
const SIZED_TIME = SIZED_BYTES + ND * NB;
const POW2_CALLS = SIZED_TIME + ND * NB;
const POW2_BYTES = POW2_CALLS + ND * POW2_BINS;
const NR = WIRE_REASONS.length;
const NS = STDIO_FNS.length;
const REASON_CALLS = POW2_BYTES + ND * POW2_BINS;
const REASON_TIME = REASON_CALLS + NR;
const STDIO_CALLS = REASON_TIME + NR;
const STDIO_BYTES = STDIO_CALLS + NS;
const MADE = STDIO_BYTES + NS;
const MADE_TIME = MADE + NC;
const MADE_SAMPLED = MADE_TIME + NC;
const SHORT_READS = MADE_SAMPLED + NC;
// The maxima come last: not cumulative (each frame's are its interval's), so they are taken as they
// are instead of differenced, and merged by the larger instead of added.
const MAX_CALL = SHORT_READS + 3;
const MAX_SIZED = MAX_CALL + NC;
export const COUNTER_SLOTS = MAX_SIZED + ND * NB;

/** Slot of each figure: c = call index, k = class, d = direction, b = size bin, i = pow2 bin. */
export const slot = {
  calls: (c: number, k: number): number => CALLS + c * NK + k,
  timeNs: (c: number, k: number): number => TIME + c * NK + k,
  sampled: (c: number): number => SAMPLED + c,
  sizedCalls: (d: number, b: number): number => SIZED_CALLS + d * NB + b,
  sizedBytes: (d: number, b: number): number => SIZED_BYTES + d * NB + b,
  sizedTimeNs: (d: number, b: number): number => SIZED_TIME + d * NB + b,
  pow2Calls: (d: number, i: number): number => POW2_CALLS + d * POW2_BINS + i,
  pow2Bytes: (d: number, i: number): number => POW2_BYTES + d * POW2_BINS + i,
  /** r = index in WIRE_REASONS, f = index in STDIO_FNS */
  reasonCalls: (r: number): number => REASON_CALLS + r,
  reasonTimeNs: (r: number): number => REASON_TIME + r,
  stdioCalls: (f: number): number => STDIO_CALLS + f,
  stdioBytes: (f: number): number => STDIO_BYTES + f,
  /**
   * the calls of type c made, whatever their class and whether it is decided yet: an open counts
   * here when it is made, in `calls` when its close decides its class (a stat when its path is
   * opened or the process ends), so the calls of a time frame are these
   */
  made: (c: number): number => MADE + c,
  /**
   * the estimated time (ns) and the timed calls of those calls, counted when they were made too (an
   * open's time is in `timeNs` from its close on), so the time of a time frame is this
   */
  madeTimeNs: (c: number): number => MADE_TIME + c,
  madeSampled: (c: number): number => MADE_SAMPLED + c,
  /**
   * the small bin's reads that got fewer bytes than they asked for (they met the end of the file:
   * green, a part of sizedCalls(read, small) etc.); 0 from senders before version 7
   */
  shortReadCalls: SHORT_READS,
  shortReadBytes: SHORT_READS + 1,
  shortReadTimeNs: SHORT_READS + 2,
  /** the longest single timed call (ns): per call type, and per direction and size bin */
  maxCallNs: (c: number): number => MAX_CALL + c,
  maxSizedNs: (d: number, b: number): number => MAX_SIZED + d * NB + b,
};

export type Counters = Float64Array;

export function emptyCounters(): Counters {
  return new Float64Array(COUNTER_SLOTS);
}

export function countersOf(record: MountRecord): Counters {
  const v = emptyCounters();
  record.calls.forEach((stats, c) => {
    let decided = 0;
    let decidedNs = 0;
    for (let k = 0; k < NK; k++) {
      v[slot.calls(c, k)] = stats.calls[k] ?? 0;
      v[slot.timeNs(c, k)] = stats.timeNs[k] ?? 0;
      decided += stats.calls[k] ?? 0;
      decidedNs += stats.timeNs[k] ?? 0;
    }
    v[slot.sampled(c)] = stats.sampled;
    // a sender before the calls made (version 3 and older), or before their time (version 4): they
    // count when they are decided
    v[slot.made(c)] = record.madeCalls?.[c] ?? decided;
    v[slot.madeTimeNs(c)] = record.madeTimeNs?.[c] ?? decidedNs;
    v[slot.madeSampled(c)] = record.madeSampled?.[c] ?? stats.sampled;
  });
  record.sized.forEach((bins, d) =>
    bins.forEach((s, b) => {
      v[slot.sizedCalls(d, b)] = s.calls;
      v[slot.sizedBytes(d, b)] = s.bytes;
      v[slot.sizedTimeNs(d, b)] = s.timeNs;
    }),
  );
  for (let d = 0; d < ND; d++) {
    for (let i = 0; i < POW2_BINS; i++) {
      v[slot.pow2Calls(d, i)] = record.pow2Calls[d]?.[i] ?? 0;
      v[slot.pow2Bytes(d, i)] = record.pow2Bytes[d]?.[i] ?? 0;
    }
  }
  for (let r = 0; r < NR; r++) {
    v[slot.reasonCalls(r)] = record.reasonCalls?.[r] ?? 0;
    v[slot.reasonTimeNs(r)] = record.reasonTimeNs?.[r] ?? 0;
  }
  for (let f = 0; f < NS; f++) {
    v[slot.stdioCalls(f)] = record.stdioCalls?.[f] ?? 0;
    v[slot.stdioBytes(f)] = record.stdioBytes?.[f] ?? 0;
  }
  v[slot.shortReadCalls] = record.shortReads?.calls ?? 0;
  v[slot.shortReadBytes] = record.shortReads?.bytes ?? 0;
  v[slot.shortReadTimeNs] = record.shortReads?.timeNs ?? 0;
  for (let c = 0; c < NC; c++) v[slot.maxCallNs(c)] = record.maxCallNs?.[c] ?? 0;
  for (let d = 0; d < ND; d++) for (let b = 0; b < NB; b++) v[slot.maxSizedNs(d, b)] = record.maxSizedNs?.[d]?.[b] ?? 0;
  return v;
}

/**
 * What happened between two cumulative snapshots of the same process, or undefined if a figure went
 * down: a process's counters only grow, and a new process is a new entry (its own pid and kernel
 * start time), so a drop is no evidence of a restart and must not be counted as one (a sender going
 * up and down would otherwise add its total again at every rise). The maxima are the current
 * snapshot's own (those of the interval since the previous one).
 */
export function delta(current: Counters, previous: Counters | undefined): Counters | undefined {
  const out = emptyCounters();
  for (let i = 0; i < MAX_CALL; i++) {
    const cur = current[i] ?? 0;
    const prev = previous?.[i] ?? 0;
    if (!(cur >= prev)) return undefined;
    out[i] = cur - prev;
  }
  for (let i = MAX_CALL; i < COUNTER_SLOTS; i++) out[i] = current[i] ?? 0;
  return out;
}

/** Adds an increment (sums; the larger of the maxima). */
export function addInto(target: Counters, increment: Counters): void {
  for (let i = 0; i < MAX_CALL; i++) target[i] = (target[i] ?? 0) + (increment[i] ?? 0);
  for (let i = MAX_CALL; i < COUNTER_SLOTS; i++) target[i] = Math.max(target[i] ?? 0, increment[i] ?? 0);
}

export function isZero(v: Counters): boolean {
  for (let i = 0; i < COUNTER_SLOTS; i++) if (v[i] !== 0) return false;
  return true;
}

/** One scalar of a delta of two scalars: a figure that went down adds nothing (see delta()). */
export function scalarDelta(current: number, previous: number | undefined): number {
  const prev = previous ?? 0;
  return current >= prev ? current - prev : 0;
}
