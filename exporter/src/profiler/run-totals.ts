// What `jobio run` accumulates from all processes of the command: totals per mount and per-second
// increments per mount (by arrival second since the start), from which the periodic records and the
// per-second statistics (min/s, mean/s, median/s, max/s) are computed.
import { addInto, emptyCounters, type Counters } from './counters.js';
import type { AggregatorSink, MountInfo, ProcessIdentity, ProcessIncrement } from './process-table.js';

export interface MountSeries {
  readonly info: MountInfo;
  readonly total: Counters;
  /** Second index since the start → increments that arrived during that second. */
  readonly seconds: Map<number, Counters>;
}

export interface SecondsWindow {
  readonly present: readonly Counters[];
  /** Seconds the window spans (at least 1); those missing from `present` are zero. */
  readonly seconds: number;
  readonly sum: Counters;
}

export class RunTotals implements AggregatorSink {
  readonly mounts = new Map<string, MountSeries>();
  runtimeNs = 0;
  droppedFrames = 0;
  ignoredCalls = 0;
  readonly processes = new Set<string>();
  readonly jobids = new Set<string>();

  constructor(
    private readonly startMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  second(): number {
    return Math.max(0, Math.floor((this.now() - this.startMs) / 1000));
  }

  mountDelta(id: ProcessIdentity, mount: MountInfo, increment: Counters): void {
    this.processes.add(id.key);
    let series = this.mounts.get(mount.path);
    if (!series) {
      series = { info: mount, total: emptyCounters(), seconds: new Map() };
      this.mounts.set(mount.path, series);
    }
    addInto(series.total, increment);
    const s = this.second();
    const bucket = series.seconds.get(s) ?? emptyCounters();
    addInto(bucket, increment);
    series.seconds.set(s, bucket);
  }

  processDelta(id: ProcessIdentity, increment: ProcessIncrement): void {
    this.processes.add(id.key);
    if (id.jobid !== '') this.jobids.add(id.jobid);
    this.runtimeNs += increment.runtimeNs;
    this.droppedFrames += increment.droppedFrames;
    this.ignoredCalls += increment.ignoredCalls;
  }

  /**
   * The seconds [from, to) of one mount: the increments of the seconds that had any (the others are
   * zero, implied by `seconds`, so a long quiet run costs no memory), and their sum.
   */
  window(series: MountSeries, from: number, to: number): SecondsWindow {
    const present: Counters[] = [];
    const sum = emptyCounters();
    for (const [s, v] of series.seconds) {
      if (s < from || s >= to) continue;
      present.push(v);
      addInto(sum, v);
    }
    return { present, seconds: Math.max(1, to - from), sum };
  }
}
