// Per-job I/O characterisation over the job's life (docs/architecture.md "Formulas"; El Sayed, Bolten, Pleiter, Frings,
// PDSW-DISCS 2016): volume, peak bandwidth, IOPS, I/O intensity, burstiness and parallel I/O intensity, for reads and
// writes together and for each direction apart. Shared by `jobio report` and the Grafana plugin's data source.
import { intervalDeltas, type Series } from './deltas.js';

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

/**
 * I, ρ and P over one direction (read, write, or both together as one volume), after the study: a server
 * "does I/O" in an interval when it moves more than c bytes of that direction.
 */
export interface DirectionCharacter {
  /** |S|: the servers that moved any byte of this direction in the job's life. */
  servers: number;
  bytes: number;
  /** The largest sum over the servers in one interval, per second. */
  peakBandwidth: number;
  /** I: the share of the job's intervals in which some server moved more than c. */
  ioIntensity: number;
  /** ρ = 1 − tanh(l_io / l_noio), 0 without an idle run. */
  burstiness: number;
  /** |S|·Π: servers over c per interval with I/O, on average (1 … |S|). */
  meanBusyServers: number;
  /** P = (|S|·Π − 1) / (|S| − 1): 1 when every server works in every I/O interval, 0 when only one does. */
  parallelIntensity: number;
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
  meanBusyServers: number;
  parallelIntensity: number;
  /** The same figures for reads alone and writes alone: a merged view hides bursty reads under steady writes. */
  read: DirectionCharacter;
  write: DirectionCharacter;
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

/** Per-target increments of a set of series, summed by target; `defined` marks intervals with any reading. */
function byTarget(list: readonly Series[], grid: readonly number[], defined: Uint8Array): Map<string, Float64Array> {
  const targets = new Map<string, Float64Array>();
  for (const s of list) {
    const target = s.labels['target'] ?? '';
    const perTarget = targets.get(target) ?? new Float64Array(grid.length);
    addInto(perTarget, intervalDeltas(s, grid), defined);
    targets.set(target, perTarget);
  }
  return targets;
}

/** I, ρ, P, volume and peak over intervals first … last of per-target increments. */
export function directionCharacter(targets: Iterable<Float64Array>, first: number, last: number, c: number, stepSeconds: number): DirectionCharacter {
  const rows = [...targets].filter((row) => row.some((d, i) => i >= first && i <= last && d > 0));
  const flags: number[] = [];
  let busyServerIntervals = 0;
  let peakBytes = 0;
  let bytes = 0;
  for (let i = first; i <= last; i++) {
    let busy = 0;
    let sum = 0;
    for (const row of rows) {
      const b = row[i] ?? 0;
      sum += b;
      if (b > c) {
        busy++;
      }
    }
    flags.push(busy > 0 ? 1 : 0);
    busyServerIntervals += busy;
    peakBytes = Math.max(peakBytes, sum);
    bytes += sum;
  }
  const ioIntervals = flags.reduce((a, b) => a + b, 0);
  const servers = rows.length;
  const meanBusyServers = ioIntervals > 0 ? busyServerIntervals / ioIntervals : 0;
  return {
    servers,
    bytes,
    peakBandwidth: peakBytes / stepSeconds,
    ioIntensity: flags.length > 0 ? ioIntervals / flags.length : 0,
    burstiness: burstiness(flags),
    meanBusyServers,
    parallelIntensity: servers > 1 && ioIntervals > 0 ? (meanBusyServers - 1) / (servers - 1) : 0,
  };
}

/** Characterises one job, or returns undefined when no interval of its life has data. */
export function characterise(input: CharacterisationInput): JobCharacter | undefined {
  const n = input.grid.length;
  const defined = new Uint8Array(n);
  const reads = byTarget(input.read, input.grid, defined);
  const writes = byTarget(input.write, input.grid, defined);
  const ops = new Float64Array(n);
  for (const s of input.operations) {
    addInto(ops, intervalDeltas(s, input.grid), defined);
  }
  const first = defined.indexOf(1);
  const last = defined.lastIndexOf(1);
  if (first < 0) {
    return undefined;
  }
  // Both directions as one volume per target (δ over read + write bytes).
  const merged = new Map<string, Float64Array>();
  for (const [target, row] of [...reads, ...writes]) {
    const sum = merged.get(target) ?? new Float64Array(n);
    row.forEach((d, i) => (sum[i] = (sum[i] ?? 0) + d));
    merged.set(target, sum);
  }
  const c = input.thresholdBytes;
  const dt = input.stepSeconds;
  const both = directionCharacter(merged.values(), first, last, c, dt);
  const read = directionCharacter(reads.values(), first, last, c, dt);
  const write = directionCharacter(writes.values(), first, last, c, dt);
  let peakOps = 0;
  let totalOps = 0;
  for (let i = first; i <= last; i++) {
    peakOps = Math.max(peakOps, ops[i] ?? 0);
    totalOps += ops[i] ?? 0;
  }
  const intervals = last - first + 1;
  return {
    startMs: input.grid[first - 1] ?? input.grid[first] ?? 0,
    endMs: input.grid[last] ?? 0,
    intervals,
    servers: both.servers,
    readBytes: read.bytes,
    writeBytes: write.bytes,
    totalBytes: both.bytes,
    peakBandwidth: both.peakBandwidth,
    meanBandwidth: both.bytes / (intervals * dt),
    meanIops: totalOps / (intervals * dt),
    peakIops: peakOps / dt,
    ioIntensity: both.ioIntensity,
    burstiness: both.burstiness,
    meanBusyServers: both.meanBusyServers,
    parallelIntensity: both.parallelIntensity,
    read,
    write,
  };
}
