// The population view of the characterisation (El Sayed, Bolten, Pleiter, Frings, PDSW-DISCS 2016): over all jobs of a
// range, how volume and peak bandwidth are distributed (counts per power of two, cumulative share), and the value of
// I, ρ and P that a given share of the jobs (80 % in the study) stays at or below, per direction and threshold c.
import type { DirectionCharacter, JobCharacter } from './characterise.js';

export type Direction = 'read' | 'write';
export const DIRECTIONS: readonly Direction[] = ['read', 'write'];

/** The thresholds the study tabulates: 0, 128 KiB and 1 MiB per interval. */
export const DEFAULT_THRESHOLDS: readonly number[] = [0, 128 * 1024, 1024 * 1024];
export const DEFAULT_QUANTILE = 0.8;

/**
 * The smallest value that a share q of the values is at or below (nearest rank: the ⌈q·n⌉-th smallest), NaN
 * for no values. "80 % of the jobs are at or below x" is exactly this x at q = 0.8.
 */
export function atOrBelow(values: readonly number[], q: number): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? NaN;
}

/**
 * The share of the values at or below x (0–1; NaN for no values): where x stands among them. Equal figures reached
 * along different paths (a mean run of 5/3 as (1 + 2 + 2)/3 or as 10/6) may differ in the last bits: values within
 * a billionth of x count as equal to it.
 */
export function shareAtOrBelow(values: readonly number[], x: number): number {
  const tie = 1e-9 * Math.max(1, Math.abs(x));
  return values.length === 0 ? NaN : values.filter((v) => v <= x + tie).length / values.length;
}

/**
 * A job counts in a direction when it moved any byte of that direction in its life: a job that never read
 * says nothing about how bursty reads are.
 */
export function directionOf(job: JobCharacter, d: Direction): DirectionCharacter | undefined {
  return job[d].servers > 0 ? job[d] : undefined;
}

export type Quantity = 'ioIntensity' | 'burstiness' | 'parallelIntensity';
export const QUANTITIES: ReadonlyArray<{ key: Quantity; name: string }> = [
  { key: 'ioIntensity', name: 'I/O intensity I' },
  { key: 'burstiness', name: 'burstiness ρ' },
  { key: 'parallelIntensity', name: 'parallel intensity P' },
];

export interface PercentileColumn {
  direction: Direction;
  thresholdBytes: number;
  /** The quantile of I, ρ and P, in QUANTITIES order. */
  values: number[];
  jobs: number;
}

/** The study's table: for each direction and threshold, the q-quantile of I, ρ and P over the jobs of that direction. */
export function percentileTable(byThreshold: ReadonlyArray<{ thresholdBytes: number; jobs: readonly JobCharacter[] }>, q: number): PercentileColumn[] {
  const columns: PercentileColumn[] = [];
  for (const direction of DIRECTIONS) {
    for (const { thresholdBytes, jobs } of byThreshold) {
      const chars = jobs.map((j) => directionOf(j, direction)).filter((c): c is DirectionCharacter => c !== undefined);
      columns.push({
        direction,
        thresholdBytes,
        values: QUANTITIES.map(({ key }) =>
          atOrBelow(
            chars.map((c) => c[key]),
            q,
          ),
        ),
        jobs: chars.length,
      });
    }
  }
  return columns;
}

export interface Log2Bin {
  /** 2^k: the bin holds values v with 2^k ≤ v < 2^(k+1). */
  from: number;
  count: number;
  /** Share of all the (positive) values at or below this bin's top. */
  cumulative: number;
}

/** Counts of positive values per power of two, every bin from the smallest to the largest, with the cumulative share. */
export function log2Bins(values: readonly number[]): Log2Bin[] {
  const exponents = values.filter((v) => v > 0 && Number.isFinite(v)).map((v) => Math.floor(Math.log2(v)));
  if (exponents.length === 0) {
    return [];
  }
  const lo = Math.min(...exponents);
  const hi = Math.max(...exponents);
  const counts = new Array<number>(hi - lo + 1).fill(0);
  for (const k of exponents) {
    counts[k - lo] = (counts[k - lo] ?? 0) + 1;
  }
  let running = 0;
  return counts.map((count, i) => {
    running += count;
    return { from: 2 ** (lo + i), count, cumulative: running / exponents.length };
  });
}

export interface DirectionSummary {
  direction: Direction;
  jobs: number;
  totalBytes: number;
  maxBytes: number;
  /** The volume a share q of the jobs moved at most. */
  bytesAtOrBelow: number;
  /** The share of the total volume moved by the largest (1 − q) of the jobs (⌈(1 − q)·n⌉ jobs). */
  topShareOfVolume: number;
  /** The peak bandwidth a share q of the jobs stayed at or below. */
  peakBandwidthAtOrBelow: number;
}

/** The study's headline figures of the volume and bandwidth distributions, per direction. */
export function directionSummary(jobs: readonly JobCharacter[], d: Direction, q: number): DirectionSummary {
  const chars = jobs.map((j) => directionOf(j, d)).filter((c): c is DirectionCharacter => c !== undefined);
  const bytes = chars.map((c) => c.bytes).sort((a, b) => b - a);
  const total = bytes.reduce((a, b) => a + b, 0);
  const top = Math.ceil((1 - q) * bytes.length - 1e-9);
  const topBytes = bytes.slice(0, top).reduce((a, b) => a + b, 0);
  return {
    direction: d,
    jobs: chars.length,
    totalBytes: total,
    maxBytes: bytes[0] ?? 0,
    bytesAtOrBelow: atOrBelow(bytes, q),
    topShareOfVolume: total > 0 ? topBytes / total : 0,
    peakBandwidthAtOrBelow: atOrBelow(
      chars.map((c) => c.peakBandwidth),
      q,
    ),
  };
}

/** "0, 131072,1048576" → [0, 131072, 1048576]; what is not a non-negative number is left out. */
export function parseThresholds(text: string): number[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map(Number)
    .filter((n) => Number.isFinite(n) && n >= 0);
}
