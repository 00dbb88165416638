// What one process can physically have done. Counters come from the sender's own frame, so without a
// bound one frame could add 1.8e19 bytes or calls. Each family of figures (calls per call type and
// class, bytes per size bin, bytes per power-of-two bin, ...) is summed and converted into the time it
// needs at a ceiling per process and second: 25 GB/s of bytes (a 200 Gb/s link, the fastest single
// HPC network port, and more than POSIX reads and writes of one process reach on a Lustre client;
// `--collector.profiler.max-process-bytes-per-second`), a billion calls per second, 10,000 threads
// each in I/O all the time. The process table keeps, per process, how much of its life its accepted
// increments have used (a budget that starts when the kernel says the process started and never runs
// ahead of the receiver's clock by more than a small slack), so however many frames a sender splits a
// forgery into, the total stays bounded by ceiling × (the process's age + the slack): a process 20 s
// old is credited at most 550 GB. The ceiling bounds the average over the process's life, not a
// burst: an honest process faster for a moment is refused that frame and credited with a later one,
// once its age covers it. Never the times the frame itself states.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseProcStat } from '../parsers/proc-stat.js';
import { CALL_TYPES, CLASSES, DIRECTIONS, POW2_BINS, SIZE_BINS } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';

export interface Ceilings {
  /** Bytes read plus written per second. */
  readonly bytesPerSecond: number;
  /** Calls (and sampled calls, dropped frames) per second. */
  readonly callsPerSecond: number;
  /** Seconds spent in I/O per second of wall-clock time (threads in I/O at once). */
  readonly ioSecondsPerSecond: number;
}

export const DEFAULT_CEILINGS: Ceilings = { bytesPerSecond: 25e9, callsPerSecond: 1e9, ioSecondsPerSecond: 1e4 };

/**
 * How far a process's I/O budget may run ahead of the receiver's clock: the kernel's start time and
 * uptime are read in 10 ms ticks, and frames are read after they were written (which only helps).
 * Once per process, not per frame; kept small because it is credited at the ceilings (2 s = 50 GB).
 */
export const SLACK_MS = 2_000;

/**
 * The same for run time, which costs nothing at the ceilings (it grows at clock speed): generous, as
 * a process's own clock and the receiver's batching may disagree by a few seconds.
 */
export const RUNTIME_SLACK_MS = 10_000;

type Kind = 'bytes' | 'calls' | 'timeNs';

/** Families of slots whose sum is one physical quantity. */
const FAMILIES: ReadonlyArray<{ kind: Kind; slots: number[] }> = (() => {
  const nc = CALL_TYPES.length;
  const nk = CLASSES.length;
  const range = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));
  const pairs = (n: number, m: number, f: (a: number, b: number) => number): number[] => range(n * m, (i) => f(Math.floor(i / m), i % m));
  const nd = DIRECTIONS.length;
  const nb = SIZE_BINS.length;
  return [
    { kind: 'calls', slots: pairs(nc, nk, slot.calls) },
    { kind: 'timeNs', slots: pairs(nc, nk, slot.timeNs) },
    { kind: 'calls', slots: range(nc, slot.sampled) },
    { kind: 'calls', slots: range(nc, slot.made) },
    { kind: 'timeNs', slots: range(nc, slot.madeTimeNs) },
    { kind: 'calls', slots: range(nc, slot.madeSampled) },
    { kind: 'calls', slots: [slot.shortReadCalls] },
    { kind: 'bytes', slots: [slot.shortReadBytes] },
    { kind: 'timeNs', slots: [slot.shortReadTimeNs] },
    { kind: 'calls', slots: pairs(nd, nb, slot.sizedCalls) },
    { kind: 'bytes', slots: pairs(nd, nb, slot.sizedBytes) },
    { kind: 'timeNs', slots: pairs(nd, nb, slot.sizedTimeNs) },
    { kind: 'calls', slots: pairs(nd, POW2_BINS, slot.pow2Calls) },
    { kind: 'bytes', slots: pairs(nd, POW2_BINS, slot.pow2Bytes) },
  ];
})();

function ceiling(kind: Kind, c: Ceilings): number {
  return kind === 'bytes' ? c.bytesPerSecond : kind === 'calls' ? c.callsPerSecond : c.ioSecondsPerSecond * 1e9;
}

/** The time (ms) `increment` needs at the ceilings: its most demanding family decides. */
export function neededMs(increment: Counters, c: Ceilings): number {
  let need = 0;
  for (const family of FAMILIES) {
    let sum = 0;
    for (const i of family.slots) sum += increment[i] ?? 0;
    const ms = (sum / ceiling(family.kind, c)) * 1000;
    need = ms > need ? ms : Number.isNaN(ms) ? Infinity : need;
  }
  return need;
}

/** Linux reports /proc/<pid>/stat start times in USER_HZ ticks, 100 per second on every architecture. */
const USER_HZ = 100;

export interface KernelStart {
  /** The process's start time in ticks since boot (its identity together with the pid). */
  readonly ticks: string;
  /** Its age in ms by the kernel's clock. */
  readonly ageMs: number;
}

/** When the kernel says `pid` started, from <procfs>/<pid>/stat and <procfs>/uptime; undefined if unreadable. */
export function kernelStart(procfs: string, pid: number): KernelStart | undefined {
  try {
    const ticks = parseProcStat(readFileSync(join(procfs, String(pid), 'stat'), 'utf8'))?.start;
    const uptime = Number(readFileSync(join(procfs, 'uptime'), 'utf8').split(' ')[0]);
    if (ticks === undefined || !Number.isFinite(uptime)) return undefined;
    return { ticks, ageMs: Math.max(0, uptime * 1000 - (Number(ticks) * 1000) / USER_HZ) };
  } catch {
    return undefined;
  }
}
