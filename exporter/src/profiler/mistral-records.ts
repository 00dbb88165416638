// Builders of Mistral-compatible log records (docs/jobio-run.md) for `jobio run --output`.
// Pure: figures in, plain JSON objects out, one per line of the log.
import { CALL_TYPES, CLASSES } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';
import { ioObject, perSecond, type IoKeyOptions, type PerSecond } from './mistral-io.js';
import type { MountInfo } from './process-table.js';
import type { SecondsWindow } from './run-totals.js';

/** The Mistral schema version whose field names and shapes these records follow. */
export const MISTRAL_SCHEMA_VERSION = '3.1.2';

export interface RecordContext {
  readonly hostname: string;
  readonly jobid: string;
  readonly jobgroupid: string;
  /** Requested variables → value ('' when unset); no `environment` field when none were requested. */
  readonly environment?: Readonly<Record<string, string>>;
  readonly timeframeSec: number;
  readonly io: IoKeyOptions;
}

export interface JobTimes {
  readonly startMs: number;
  readonly endMs: number;
  /**
   * The end of the run's last frame on the log's clock: the start plus the frames' whole seconds, so
   * a record's timestamp less its timeframe is where the frame began. The job-total records are
   * stamped with it (endMs where it is not given); jobendtime stays the real end.
   */
  readonly frameEndMs?: number;
}

/** The timestamp of the job-total records. */
export const jobStampMs = (times: JobTimes): number => times.frameEndMs ?? times.endMs;

type Json = Record<string, unknown>;

/** ISO 8601 in local time with seconds and the UTC offset: 2023-09-19T13:38:20+01:00. */
export function isoTimestamp(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(Math.trunc(Math.abs(n))).padStart(2, '0');
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${sign}${pad(offset / 60)}:${pad(offset % 60)}`;
}

/** The host part of a mount source: `host:/path` (NFS) or `10.0.0.1@tcp:/fs` (Lustre); '' for devices. */
export function fsHost(fsname: string): string {
  const i = fsname.indexOf(':');
  return i > 0 && !fsname.startsWith('/') ? fsname.slice(0, i) : '';
}

export function common(ctx: RecordContext, type: string, timestampMs: number, jobtotal: false | JobTimes): Json {
  const out: Json = { version: MISTRAL_SCHEMA_VERSION, timestamp: isoTimestamp(timestampMs), hostname: ctx.hostname, jobid: ctx.jobid, jobgroupid: ctx.jobgroupid, type, jobtotal: jobtotal !== false };
  if (ctx.environment) out.environment = { ...ctx.environment };
  if (jobtotal !== false) {
    out.jobrealtime = Math.round((jobtotal.endMs - jobtotal.startMs) * 1000);
    out.jobstarttime = Math.round(jobtotal.startMs);
    out.jobendtime = Math.round(jobtotal.endMs);
  }
  return out;
}

function mountObject(info: MountInfo | '*'): Json {
  if (info === '*') return { path: '*', fstype: '*', fsname: '*', fshost: '*' };
  return { path: info.path, fstype: info.fstype, fsname: info.fsname, fshost: fsHost(info.fsname) };
}

/** A `mountpoint` record: one mount, or all mounts (`'*'`, cumulative) over a window. */
export function mountpointRecord(ctx: RecordContext, mount: MountInfo | '*', window: SecondsWindow, timestampMs: number, jobtotal: false | JobTimes): Json {
  return {
    ...common(ctx, 'mountpoint', timestampMs, jobtotal),
    timeframe: `${window.seconds}s`,
    cumulative: mount === '*',
    mountpoint: mountObject(mount),
    io: ioObject(window, ctx.io),
  };
}

/** A `network` record: like `mountpoint` with the peer `address` instead of the mount; `*` the total over every peer (cumulative). */
export function networkRecord(ctx: RecordContext, address: string, window: SecondsWindow, timestampMs: number, jobtotal: false | JobTimes): Json {
  return {
    ...common(ctx, 'network', timestampMs, jobtotal),
    timeframe: `${window.seconds}s`,
    cumulative: address === '*',
    address,
    io: ioObject(window, ctx.io),
  };
}

export interface ClassFigures {
  readonly calls: readonly number[];
  readonly timeNs: readonly number[];
  readonly sampled: number;
}

/** Calls and estimated time per class over every call type. */
export function classFigures(v: Counters): ClassFigures {
  const calls = CLASSES.map(() => 0);
  const timeNs = CLASSES.map(() => 0);
  let sampled = 0;
  CALL_TYPES.forEach((_, c) => {
    CLASSES.forEach((_k, k) => {
      calls[k] = (calls[k] ?? 0) + (v[slot.calls(c, k)] ?? 0);
      timeNs[k] = (timeNs[k] ?? 0) + (v[slot.timeNs(c, k)] ?? 0);
    });
    sampled += v[slot.sampled(c)] ?? 0;
  });
  return { calls, timeNs, sampled };
}

const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 100_000) / 1000 : 0);

/**
 * `iosummary`: totals and red/yellow/green blocks. Times are omitted when fewer than minSampled calls
 * were timed (Mistral's rule against wild estimates for short jobs).
 */
export function ioSummary(f: ClassFigures, jobRealTimeUs: number, minSampled: number, accumulatedRuntimeUs?: number): Json {
  const totalCalls = f.calls.reduce((a, b) => a + b, 0);
  const totalUs = f.timeNs.reduce((a, b) => a + b, 0) / 1000;
  const timed = f.sampled >= minSampled && f.sampled > 0;
  const total: Json = {};
  if (accumulatedRuntimeUs !== undefined) total.accumulatedruntime = Math.round(accumulatedRuntimeUs);
  if (timed) {
    total.accumulatediotime = Math.round(totalUs);
    total.iotimepercentage = pct(totalUs, jobRealTimeUs);
  }
  total.calls = totalCalls;
  const summary: Json = { total };
  CLASSES.forEach((cls, k) => {
    const calls = f.calls[k] ?? 0;
    const us = (f.timeNs[k] ?? 0) / 1000;
    const block: Json = {};
    if (timed) block.time = { iotime: Math.round(us), iopercentage: pct(us, totalUs) };
    block.calls = { iocount: calls, iopercentage: pct(calls, totalCalls) };
    summary[cls] = block;
  });
  return summary;
}

export function jobSummaryRecord(ctx: RecordContext, f: ClassFigures, times: JobTimes, accumulatedRuntimeUs: number): Json {
  const realUs = (times.endMs - times.startMs) * 1000;
  return { ...common(ctx, 'jobsummary', jobStampMs(times), times), iosummary: ioSummary(f, realUs, ctx.io.minSampled, accumulatedRuntimeUs) };
}

export function mountpointSummaryRecord(ctx: RecordContext, mount: MountInfo, f: ClassFigures, times: JobTimes): Json {
  const realUs = (times.endMs - times.startMs) * 1000;
  return { ...common(ctx, 'mountpointsummary', jobStampMs(times), times), mountpoint: mountObject(mount), iosummary: ioSummary(f, realUs, ctx.io.minSampled) };
}

export interface ResourceWindow {
  /** Per-second CPU figures in µs for the seconds of the window (host, and the command's processes). */
  readonly hostUser: readonly number[];
  readonly hostSystem: readonly number[];
  readonly hostIowait: readonly number[];
  readonly jobUser: readonly number[];
  readonly jobSystem: readonly number[];
  readonly rssBytes: readonly number[];
  readonly vmemBytes: readonly number[];
  readonly seconds: number;
  /** Peaks where known beyond the samples (getrusage of the reaped command at the end). */
  readonly rssMaxBytes?: number;
  readonly vmemMaxBytes?: number;
}

const sumOf = (a: readonly number[]): number => a.reduce((x, y) => x + y, 0);
const meanOf = (a: readonly number[]): number => (a.length > 0 ? Math.round(sumOf(a) / a.length) : 0);

const cpu = (values: readonly number[], seconds: number): PerSecond => perSecond(values, seconds);

/**
 * Mistral's `cpus` object: the CPUs the job kept busy (CPU time / 1 s), as whole numbers: `total` over
 * the frame's seconds added up (CPU-seconds: 7 for a frame of 8 s at seven eighths of a CPU), the
 * per-second statistics for each second.
 */
export function cpusObject(cpuUsPerSecond: readonly number[], seconds: number): Json {
  const busy = perSecond(
    cpuUsPerSecond.map((us) => us / 1e6),
    seconds,
  );
  return { total: Math.round(sumOf(cpuUsPerSecond) / 1e6), 'mean/s': busy['mean/s'], 'median/s': busy['median/s'], 'max/s': busy['max/s'] };
}

/** `scope` (`cpu-memory.enabled`): all = the host and job blocks, or only one of them. */
export function resourcesRecord(ctx: RecordContext, r: ResourceWindow, timestampMs: number, jobtotal: false | JobTimes, scope: 'all' | 'job' | 'host' | 'no' = 'all'): Json {
  const add = (a: readonly number[], b: readonly number[]): number[] => a.map((x, i) => x + (b[i] ?? 0));
  const blocks: Json = {
    host: {
      cpuusertime: cpu(r.hostUser, r.seconds),
      cpusystemtime: cpu(r.hostSystem, r.seconds),
      cputotaltime: cpu(add(r.hostUser, r.hostSystem), r.seconds),
      iowait: cpu(r.hostIowait, r.seconds),
    },
    job: {
      cpuusertime: cpu(r.jobUser, r.seconds),
      cpusystemtime: cpu(r.jobSystem, r.seconds),
      cputotaltime: cpu(add(r.jobUser, r.jobSystem), r.seconds),
      cpus: cpusObject(add(r.jobUser, r.jobSystem), r.seconds),
      rssmem: { max: Math.round(r.rssMaxBytes ?? Math.max(0, ...r.rssBytes)), 'mean/s': meanOf(r.rssBytes) },
      vmem: { max: Math.round(r.vmemMaxBytes ?? Math.max(0, ...r.vmemBytes)), 'mean/s': meanOf(r.vmemBytes) },
    },
  };
  if (scope === 'host') delete blocks.job;
  if (scope === 'job') delete blocks.host;
  return { ...common(ctx, 'resources', timestampMs, jobtotal), timeframe: `${r.seconds}s`, resources: blocks };
}

/** One GPU (`device` a path like /dev/nvidia0) or all of them (`*`) over a window (run-gpu.ts). */
export interface GpuFigures {
  readonly device: string;
  /** Per second of the window, its first second first (0 where nothing was measured): J, PCIe bytes received and sent. */
  readonly energyJ: readonly number[];
  readonly readBytes: readonly number[];
  readonly writeBytes: readonly number[];
  /** Per second of the window: the mean % of its samples; undefined where it had none (not 0 % busy). */
  readonly utilisation: readonly (number | undefined)[];
  /** The samples of the window. */
  readonly temperature: readonly number[];
  readonly mem: readonly number[];
  readonly power: readonly number[];
}

const round = (v: number): number => Math.round(v * 1000) / 1000;
const maxMean = (values: readonly number[]): Json => ({ max: round(Math.max(0, ...values)), 'mean/s': round(values.length > 0 ? sumOf(values) / values.length : 0) });
const measured = (values: readonly (number | undefined)[]): number[] => values.filter((v): v is number => v !== undefined);

/** Utilisation is a level, not a count: its statistics are over the seconds that were sampled, and it has no total. */
function utilisationObject(perSecondPct: readonly (number | undefined)[]): Json {
  const values = measured(perSecondPct);
  const s = perSecond(values, values.length, round);
  return { 'min/s': s['min/s'], 'mean/s': s['mean/s'], 'median/s': s['median/s'], 'max/s': s['max/s'] };
}

/**
 * A `gpu` record as the manual has it: `usage.energy` (J), `read`/`write` (PCIe bytes received/sent
 * by the GPU) as `{total, min/s, mean/s, median/s, max/s}` over the frame's seconds, `utilisation`
 * (%) as its per-second statistics, `temperature` (°C) and `mem` (bytes used) as {max, mean/s}, and
 * jobio's `power` (W) as {max, mean/s}. The figures keep their fractions, as Mistral's do.
 */
export function gpuRecord(ctx: RecordContext, g: GpuFigures, seconds: number, timestampMs: number, jobtotal: false | JobTimes): Json {
  return {
    ...common(ctx, 'gpu', timestampMs, jobtotal),
    timeframe: `${seconds}s`,
    cumulative: g.device === '*',
    gpu: g.device,
    usage: {
      energy: perSecond(g.energyJ, seconds, round),
      read: perSecond(g.readBytes, seconds, round),
      write: perSecond(g.writeBytes, seconds, round),
      utilisation: utilisationObject(g.utilisation),
      temperature: maxMean(g.temperature),
      mem: maxMean(g.mem),
      power: maxMean(g.power),
    },
  };
}

/**
 * All GPUs together: per second, the counters added up and utilisation averaged over the GPUs sampled
 * in it; memory and power added up per sample, temperature per sample across GPUs.
 */
export function allGpus(gpus: readonly GpuFigures[]): GpuFigures {
  const n = Math.max(...gpus.map((g) => g.mem.length), 0);
  const summed = (pick: (g: GpuFigures) => readonly number[]): number[] => Array.from({ length: n }, (_, i) => sumOf(gpus.map((g) => pick(g)[i] ?? 0)));
  const seconds = Math.max(...gpus.map((g) => g.energyJ.length), 0);
  const perSecondSum = (pick: (g: GpuFigures) => readonly number[]): number[] => Array.from({ length: seconds }, (_, i) => sumOf(gpus.map((g) => pick(g)[i] ?? 0)));
  return {
    device: '*',
    energyJ: perSecondSum((g) => g.energyJ),
    readBytes: perSecondSum((g) => g.readBytes),
    writeBytes: perSecondSum((g) => g.writeBytes),
    utilisation: Array.from({ length: seconds }, (_, i) => {
      const values = measured(gpus.map((g) => g.utilisation[i]));
      return values.length > 0 ? sumOf(values) / values.length : undefined;
    }),
    temperature: gpus.flatMap((g) => g.temperature),
    mem: summed((g) => g.mem),
    power: summed((g) => g.power),
  };
}
