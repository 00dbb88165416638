// Writes the Mistral-compatible records of one `jobio run`: periodic records as each timeframe ends,
// and the job-total records at the end. Holds no figures itself: it reads RunTotals and the sampler.
import { emptyCounters, addInto, type Counters } from '../profiler/counters.js';
import {
  allGpus,
  classFigures,
  gpuRecord,
  jobStampMs,
  jobSummaryRecord,
  mountpointRecord,
  mountpointSummaryRecord,
  networkRecord,
  resourcesRecord,
  type JobTimes,
  type RecordContext,
} from '../profiler/mistral-records.js';
import type { MountSeries, RunTotals, SecondsWindow } from '../profiler/run-totals.js';
import type { ResourceSampler } from './run-resources.js';
import type { GpuSampler } from './run-gpu.js';
import { diagnosisRecord, type Diagnosis } from '../profiler/diagnosis.js';
import type { CpuMemory } from './run-options.js';

/** The pseudo mounts under which the library counts socket I/O when JOBIO_NETWORK=1. */
export const NETWORK_FSTYPE = 'socket';

export const isNetwork = (m: MountSeries): boolean => m.info.fstype === NETWORK_FSTYPE;

/**
 * The peer address of a network pseudo mount: "[network] 10.1.2.3" is the I/O with 10.1.2.3;
 * "[network]" alone (peers beyond the library's per-process slots, sockets without a peer) has none.
 */
export function peerAddress(m: MountSeries): string | undefined {
  const prefix = '[network] ';
  return m.info.path.startsWith(prefix) && m.info.path.length > prefix.length ? m.info.path.slice(prefix.length) : undefined;
}

/** Several series as one over seconds [from, to): the per-second sums and the total (and, given the run's totals, the sum before). */
export function combinedWindow(series: readonly MountSeries[], from: number, to: number, totals?: RunTotals): SecondsWindow {
  const seconds = new Map<number, Counters>();
  const sum = emptyCounters();
  const before = emptyCounters();
  for (const m of series) {
    if (totals) addInto(before, totals.before(m, from));
    for (const [s, v] of m.seconds) {
      if (s < from || s >= to) continue;
      const acc = seconds.get(s) ?? emptyCounters();
      addInto(acc, v);
      seconds.set(s, acc);
      addInto(sum, v);
    }
  }
  return { present: [...seconds.values()], seconds: Math.max(1, to - from), sum, before };
}

/** Which records are written (`totals`, `cpu-memory.enabled`, jobio's `diagnosis`). */
export interface RecordSelection {
  /** false: no `jobtotal: true` record at all. */
  readonly totals: boolean;
  /** The blocks of the resources records; no: no resources records. */
  readonly cpuMemory: CpuMemory;
  readonly diagnosis: boolean;
}

export const ALL_RECORDS: RecordSelection = { totals: true, cpuMemory: 'all', diagnosis: true };

export class RunOutput {
  constructor(
    /** Takes each record as one JSON line (the log file, or an output plug-in). */
    private readonly sink: (line: string) => void,
    private readonly ctx: RecordContext,
    private readonly totals: RunTotals,
    private readonly sampler: ResourceSampler | undefined,
    private readonly network: boolean,
    private readonly gpu?: GpuSampler,
    private readonly selection: RecordSelection = ALL_RECORDS,
  ) {}

  private write(record: { type?: unknown; jobtotal?: unknown }): void {
    if (!this.selected(record)) return;
    this.sink(`${JSON.stringify(record)}\n`);
  }

  /** With `totals: no` no job-total record; resources and diagnosis as selected. */
  private selected(record: { type?: unknown; jobtotal?: unknown }): boolean {
    if (!this.selection.totals && record.jobtotal === true) return false;
    if (record.type === 'resources') return this.selection.cpuMemory !== 'no';
    if (record.type === 'diagnosis') return this.selection.diagnosis;
    return true;
  }

  /** mountpoint (per mount and `*`), network and resources records for seconds [from, to). */
  frame(from: number, to: number, timestampMs: number, jobtotal: false | JobTimes): void {
    const files = [...this.totals.mounts.values()].filter((m) => !isNetwork(m));
    let written = 0;
    for (const m of files) {
      const w = this.totals.window(m, from, to);
      if (jobtotal === false && w.present.length === 0) continue;
      this.write(mountpointRecord(this.ctx, m.info, w, timestampMs, jobtotal));
      written++;
    }
    if (written > 0 || jobtotal !== false) this.write(mountpointRecord(this.ctx, '*', combinedWindow(files, from, to, this.totals), timestampMs, jobtotal));
    if (this.network) this.networkFrame(from, to, timestampMs, jobtotal);
    if (this.sampler && jobtotal === false) this.write(resourcesRecord(this.ctx, this.sampler.window(from, to), timestampMs, false, this.selection.cpuMemory));
    const gpus = this.gpu?.windows(from, to) ?? [];
    for (const g of gpus) this.write(gpuRecord(this.ctx, g, Math.max(1, to - from), timestampMs, jobtotal));
    if (gpus.length > 0) this.write(gpuRecord(this.ctx, allGpus(gpus), Math.max(1, to - from), timestampMs, jobtotal));
    if (jobtotal === false) {
      this.sampler?.seal(to);
      this.gpu?.seal(to);
    }
  }

  /**
   * network records: one per peer address with I/O in the window (all of them in the job total), then
   * the total over every socket (address "*", cumulative), which alone holds the "[network]" part.
   */
  private networkFrame(from: number, to: number, timestampMs: number, jobtotal: false | JobTimes): void {
    const sockets = [...this.totals.mounts.values()].filter(isNetwork);
    if (sockets.length === 0) return;
    for (const m of sockets) {
      const address = peerAddress(m);
      if (address === undefined) continue;
      const w = this.totals.window(m, from, to);
      if (jobtotal === false && w.present.length === 0) continue;
      this.write(networkRecord(this.ctx, address, w, timestampMs, jobtotal));
    }
    const all = combinedWindow(sockets, from, to, this.totals);
    if (jobtotal !== false || all.present.length > 0) this.write(networkRecord(this.ctx, '*', all, timestampMs, jobtotal));
  }

  /** End of the job: job-total mountpoint records, mountpointsummary per mount, jobsummary, resources. */
  finish(times: JobTimes, slots: number, maxRssBytes: number | undefined, diagnosis?: Diagnosis): void {
    this.frame(0, slots, jobStampMs(times), times);
    const files = [...this.totals.mounts.values()].filter((m) => !isNetwork(m));
    const total = emptyCounters();
    for (const m of files) {
      this.write(mountpointSummaryRecord(this.ctx, m.info, classFigures(m.total), times));
      addInto(total, m.total);
    }
    this.write(jobSummaryRecord(this.ctx, classFigures(total), times, this.totals.runtimeNs / 1000));
    if (diagnosis) this.write(diagnosisRecord(this.ctx, diagnosis, times));
    if (this.sampler) {
      const w = this.sampler.window(0, slots);
      // The largest sampled sum over the process tree; getrusage's peak of the largest single process
      // raises it for jobs shorter than a sample. A process's virtual size is never below its
      // resident size, so vmem.max is at least rssmem.max.
      const rssMaxBytes = Math.max(this.sampler.peakRssBytes, maxRssBytes ?? 0);
      const vmemMaxBytes = Math.max(this.sampler.peakVmemBytes, rssMaxBytes);
      // CPU: the per-second figures, which closeTail completed with getrusage's exact totals.
      this.write(resourcesRecord(this.ctx, { ...w, rssMaxBytes, vmemMaxBytes }, jobStampMs(times), times, this.selection.cpuMemory));
    }
  }
}
