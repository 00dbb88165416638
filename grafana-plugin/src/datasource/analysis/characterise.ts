// Per-job I/O characterisation over the job's life (docs/architecture.md "Formulas"; El Sayed, Bolten, Pleiter, Frings,
// PDSW-DISCS 2016): volume, peak bandwidth, IOPS, I/O intensity, burstiness and parallel I/O intensity.
import type { Series } from '../prometheus/types';
import { intervalDeltas } from './deltas';

export interface CharacterisationInput {
  /** Counter series for one job, by target: read bytes, write bytes, operations. */
  read: Series[];
  write: Series[];
  operations: Series[];
  /** Range-query grid (ms) and its step (seconds). */
  grid: readonly number[];
  stepSeconds: number;
  /** Threshold c: a server "does I/O" in an interval when it moves more than c bytes. */
  thresholdBytes: number;
}

export interface JobCharacter {
  startMs: number;
  endMs: number;
  intervals: number;
  servers: number;
  readBytes: number;
  writeBytes: number;
  totalBytes: number;
  peakBandwidth: number;
  meanBandwidth: number;
  meanIops: number;
  peakIops: number;
  ioIntensity: number;
  burstiness: number;
  parallelIntensity: number;
  parallelNormalised: number;
}

function addInto(sum: Float64Array, deltas: Float64Array, defined: Uint8Array): void {
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i] ?? NaN;
    if (!Number.isNaN(d)) {
      sum[i] = (sum[i] ?? 0) + d;
      defined[i] = 1;
    }
  }
}

/** Mean lengths of runs of consecutive 1s and of 0s. */
export function meanRunLengths(flags: readonly number[]): { on: number; off: number } {
  const runs = { on: [] as number[], off: [] as number[] };
  let current = -1;
  let length = 0;
  for (const f of flags) {
    const v = f ? 1 : 0;
    if (v === current) {
      length++;
      continue;
    }
    if (current !== -1) {
      (current ? runs.on : runs.off).push(length);
    }
    current = v;
    length = 1;
  }
  if (current !== -1) {
    (current ? runs.on : runs.off).push(length);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return { on: mean(runs.on), off: mean(runs.off) };
}

/**
 * ρ = 1 − tanh(l_io / l_noio) if l_noio > 0, else 0. A job with no I/O interval at all has no bursts:
 * 0 as well (the formula would give 1).
 */
export function burstiness(flags: readonly number[]): number {
  const { on, off } = meanRunLengths(flags);
  return off > 0 && on > 0 ? 1 - Math.tanh(on / off) : 0;
}

/** Characterises one job, or returns undefined when no interval of its life has data. */
export function characterise(input: CharacterisationInput): JobCharacter | undefined {
  const n = input.grid.length;
  const defined = new Uint8Array(n);
  const targets = new Map<string, Float64Array>();
  const bytesTotal = { read: 0, write: 0 };
  for (const [kind, list] of [
    ['read', input.read],
    ['write', input.write],
  ] as const) {
    for (const s of list) {
      const target = s.labels['target'] ?? '';
      const perTarget = targets.get(target) ?? new Float64Array(n);
      const deltas = intervalDeltas(s, input.grid);
      addInto(perTarget, deltas, defined);
      targets.set(target, perTarget);
      for (const d of deltas) {
        bytesTotal[kind] += Number.isNaN(d) ? 0 : d;
      }
    }
  }
  const ops = new Float64Array(n);
  for (const s of input.operations) {
    addInto(ops, intervalDeltas(s, input.grid), defined);
  }
  const first = defined.indexOf(1);
  const last = defined.lastIndexOf(1);
  if (first < 0) {
    return undefined;
  }
  const c = input.thresholdBytes;
  const dt = input.stepSeconds;
  const flags: number[] = [];
  let busyServerIntervals = 0;
  let peakBytes = 0;
  let peakOps = 0;
  let totalOps = 0;
  for (let i = first; i <= last; i++) {
    let busy = 0;
    let bytes = 0;
    for (const perTarget of targets.values()) {
      const b = perTarget[i] ?? 0;
      bytes += b;
      if (b > c) {
        busy++;
      }
    }
    flags.push(busy > 0 ? 1 : 0);
    busyServerIntervals += busy;
    peakBytes = Math.max(peakBytes, bytes);
    peakOps = Math.max(peakOps, ops[i] ?? 0);
    totalOps += ops[i] ?? 0;
  }
  const intervals = flags.length;
  const ioIntervals = flags.reduce((a, b) => a + b, 0);
  const servers = targets.size;
  const parallelIntensity = ioIntervals > 0 ? busyServerIntervals / ioIntervals : 0;
  const totalBytes = bytesTotal.read + bytesTotal.write;
  return {
    startMs: input.grid[first - 1] ?? input.grid[first] ?? 0,
    endMs: input.grid[last] ?? 0,
    intervals,
    servers,
    readBytes: bytesTotal.read,
    writeBytes: bytesTotal.write,
    totalBytes,
    peakBandwidth: peakBytes / dt,
    meanBandwidth: totalBytes / (intervals * dt),
    meanIops: totalOps / (intervals * dt),
    peakIops: peakOps / dt,
    ioIntensity: ioIntervals / intervals,
    burstiness: burstiness(flags),
    parallelIntensity,
    parallelNormalised: servers > 1 && ioIntervals > 0 ? (parallelIntensity - 1) / (servers - 1) : 0,
  };
}
