// What `jobio run` accumulates from all processes of the command: totals per mount and per-second
// increments per mount (by arrival second since the start), from which the periodic records and the
// per-second statistics (min/s, mean/s, median/s, max/s) are computed.
import type { MountRecord, ProcessRecord, ProcessUnseen } from '../parsers/profiler-record.js';
import { addInto, emptyCounters, type Counters } from './counters.js';
import type { AggregatorSink, MountInfo, ProcessIdentity, ProcessIncrement } from './process-table.js';
import { programKey, programOf, type Program } from './programs.js';
import type { RefusedProcess } from './refused-processes.js';
import { UnprofiledTracker } from './unprofiled.js';

/** What the processes saw but could not count, summed over processes (their latest figures). */
export interface UnseenTotals extends ProcessUnseen {
  /** processes that used io_uring / POSIX AIO / libaio / file mappings */
  readonly ioUringProcesses: number;
  readonly posixAioProcesses: number;
  readonly libaioProcesses: number;
  readonly mmapProcesses: number;
}

export interface MountSeries {
  readonly info: MountInfo;
  readonly total: Counters;
  /** Second index since the start → increments that arrived during that second. */
  readonly seconds: Map<number, Counters>;
}

/** The totals of one program on one mount (the reasons of the diagnosis are per program and mount). */
export interface ProgramMountTotals {
  readonly program: Program;
  readonly info: MountInfo;
  readonly total: Counters;
}

export interface SecondsWindow {
  readonly present: readonly Counters[];
  /** Seconds the window spans (at least 1); those missing from `present` are zero. */
  readonly seconds: number;
  readonly sum: Counters;
  /**
   * The run's figures before the window (the seconds before `from`): a duration released without
   * calls borrows its timed calls from them, and a frame's rounded totals are the differences of the
   * run's rounded totals, so the frames add up to the job total exactly (mistral-io.ts).
   */
  readonly before?: Counters;
}

/** Why a program started as another user sent nothing to `jobio run`. */
export const ANOTHER_USER = (uid: number): string => `run as uid ${uid}, another user, whom the run's private socket refuses`;

export class RunTotals implements AggregatorSink {
  readonly mounts = new Map<string, MountSeries>();
  /** per program and mount (key: name, component and mount path; programKey and mount path for a second program of the same name) */
  readonly byProgram = new Map<string, ProgramMountTotals>();
  runtimeNs = 0;
  droppedFrames = 0;
  /** socket calls counted only in the network total (a process had more peers than it keeps apart) */
  networkFolded = 0;
  ignoredCalls = 0;
  readonly processes = new Set<string>();
  readonly jobids = new Set<string>();
  /** seconds before this one are in frames already written */
  private sealed = 0;
  private readonly unseenByProcess = new Map<string, ProcessUnseen>();
  /** per series, the sum of its sealed seconds before `to` (before()) */
  private readonly prefixes = new Map<MountSeries, { to: number; sum: Counters }>();
  /**
   * programs exec'd or spawned by profiled processes, and whether they said hello; owner: the uid
   * the exec'ing or spawning process had changed to, if it had (ProcessIdentity.senderUid)
   */
  private readonly unprofiledPrograms: UnprofiledTracker<number | undefined>;

  constructor(
    private readonly startMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.unprofiledPrograms = new UnprofiledTracker(now);
  }

  second(): number {
    return Math.max(0, Math.floor((this.now() - this.startMs) / 1000));
  }

  /**
   * The second a snapshot belongs to: when the process took it (its frame's wall-clock time, which the
   * library's flush thread puts just before a second's end), not when it arrived; never later than
   * now, never before the run.
   */
  private secondOf(record: MountRecord | undefined): number {
    const now = this.second();
    if (!record) return now;
    const takenMs = Number(record.header.nowNs / 1_000_000n);
    return Math.min(now, Math.max(this.sealed, Math.floor((takenMs - this.startMs) / 1000)));
  }

  /** The seconds before `second` are written out (a frame): what arrives later joins a later second. */
  seal(second: number): void {
    this.sealed = Math.max(this.sealed, second);
  }

  mountDelta(id: ProcessIdentity, mount: MountInfo, increment: Counters, record?: MountRecord): void {
    this.processes.add(id.key);
    let series = this.mounts.get(mount.path);
    if (!series) {
      series = { info: { path: mount.path, fstype: mount.fstype, fsname: mount.fsname }, total: emptyCounters(), seconds: new Map() };
      this.mounts.set(mount.path, series);
    }
    addInto(series.total, increment);
    addInto(this.programTotals(programOf(id.exe, id.exePath, mount.component), mount).total, increment);
    const s = this.secondOf(record);
    const bucket = series.seconds.get(s) ?? emptyCounters();
    addInto(bucket, increment);
    series.seconds.set(s, bucket);
  }

  /**
   * The totals of a program on a mount. A process whose path could not be read (it exited before the
   * receiver looked) joins the program of the same name whose path is known; two programs of the same
   * name at different paths stay apart.
   */
  private programTotals(program: Program, mount: MountInfo): ProgramMountTotals {
    const byName = `${program.name}\0${program.component ?? ''}\0${mount.path}`;
    const known = this.byProgram.get(byName);
    if (known && (program.path === '' || known.program.path === program.path)) return known;
    if (known && known.program.path === '') {
      const upgraded = { ...known, program };
      this.byProgram.set(byName, upgraded);
      return upgraded;
    }
    const key = known ? `${programKey(program)}\0${mount.path}` : byName;
    let mine = this.byProgram.get(key);
    if (!mine) {
      mine = { program, info: mount, total: emptyCounters() };
      this.byProgram.set(key, mine);
    }
    return mine;
  }

  processDelta(id: ProcessIdentity, increment: ProcessIncrement, record?: ProcessRecord): void {
    this.processes.add(id.key);
    if (record) {
      if (record.unseen) this.unseenByProcess.set(id.key, record.unseen);
      this.unprofiledPrograms.frame(id.key, id.pid, record, id.senderUid);
    }
    if (id.jobid !== '') this.jobids.add(id.jobid);
    this.runtimeNs += increment.runtimeNs;
    this.droppedFrames += increment.droppedFrames;
    this.ignoredCalls += increment.ignoredCalls;
    this.networkFolded += increment.networkFolded;
  }

  /** io_uring, POSIX AIO, libaio and file mappings, over every process. */
  unseen(): UnseenTotals {
    const u = { ioUringSetups: 0, posixAioCalls: 0, libaioIocbs: 0, mmapBytes: 0, ioUringProcesses: 0, posixAioProcesses: 0, libaioProcesses: 0, mmapProcesses: 0 };
    for (const p of this.unseenByProcess.values()) {
      u.ioUringSetups += p.ioUringSetups;
      u.posixAioCalls += p.posixAioCalls;
      u.libaioIocbs += p.libaioIocbs;
      u.mmapBytes += p.mmapBytes;
      u.ioUringProcesses += p.ioUringSetups > 0 ? 1 : 0;
      u.posixAioProcesses += p.posixAioCalls > 0 ? 1 : 0;
      u.libaioProcesses += p.libaioIocbs > 0 ? 1 : 0;
      u.mmapProcesses += p.mmapBytes > 0 ? 1 : 0;
    }
    return u;
  }

  /**
   * Programs a profiled process exec'd whose image never said hello: run without the profiler
   * (static, setuid, a cleared environment, or excluded). An exec that failed (the process went on
   * sending frames) and an image that reported (same pid, later start) are not counted. Children
   * started with vfork or posix_spawn (named in their parent's frames) that never reported count too.
   * One started by a process that had changed user ran as that user, whom the run's private socket
   * (0600 in a 0700 directory) refuses: said so, with the uid.
   * `refused`: the processes of another user that said the private socket refused them
   * (refused-processes.ts), by pid: a program above that is one of them is named with its uid; the
   * others (a child forked after its parent changed user, which no profiled process names) follow,
   * one each (those beyond, only counted, are the diagnosis's unprofiledUnnamed).
   */
  unprofiledExecs(refused: { readonly byPid: ReadonlyMap<number, RefusedProcess> } = { byPid: new Map() }): string[] {
    const named = new Set<number>();
    const out = this.unprofiledPrograms.unprofiled().map((p) => {
      const owner = p.owner ?? refused.byPid.get(p.pid)?.uid;
      if (refused.byPid.has(p.pid)) named.add(p.pid);
      return owner === undefined ? p.name : `${p.name} (${ANOTHER_USER(owner)})`;
    });
    for (const [pid, r] of refused.byPid) if (!named.has(pid)) out.push(`${r.name} (${ANOTHER_USER(r.uid)})`);
    return out;
  }

  /** Did any process with this pid report? (the command itself: static or setuid when not) */
  sawPid(pid: number): boolean {
    return this.unprofiledPrograms.sawPid(pid);
  }

  /**
   * The seconds [from, to) of one mount: the increments of the seconds that had any (the others are
   * zero, implied by `seconds`, so a long quiet run costs no memory), and their sum.
   */
  /**
   * Moves the figures of seconds from `slots` on into the last slot (`slots - 1`): the run's last,
   * partial second joins the one before it, so a 25.2 s run has 25 one-second slots and its frames
   * and job totals say "25s" consistently with their per-second statistics.
   */
  foldTail(slots: number): void {
    const last = Math.max(0, slots - 1);
    for (const series of this.mounts.values()) {
      for (const [s, v] of [...series.seconds]) {
        if (s <= last) continue;
        const into = series.seconds.get(last) ?? emptyCounters();
        addInto(into, v);
        series.seconds.set(last, into);
        series.seconds.delete(s);
      }
    }
  }

  window(series: MountSeries, from: number, to: number): SecondsWindow {
    const present: Counters[] = [];
    const sum = emptyCounters();
    for (const [s, v] of series.seconds) {
      if (s < from || s >= to) continue;
      present.push(v);
      addInto(sum, v);
    }
    return { present, seconds: Math.max(1, to - from), sum, before: this.before(series, from) };
  }

  /**
   * The sum of a series' seconds before `second`. The sealed seconds never change again, so their
   * sum is kept and only grown by the seconds sealed since: a run's frames cost one addition per
   * second in all, not a pass over the whole run per frame.
   */
  before(series: MountSeries, second: number): Counters {
    let prefix = this.prefixes.get(series);
    if (!prefix) {
      prefix = { to: 0, sum: emptyCounters() };
      this.prefixes.set(series, prefix);
    }
    if (second < prefix.to) return this.sumOf(series, 0, second);
    const settled = Math.min(second, this.sealed);
    for (; prefix.to < settled; prefix.to++) {
      const v = series.seconds.get(prefix.to);
      if (v) addInto(prefix.sum, v);
    }
    const out = emptyCounters();
    addInto(out, prefix.sum);
    if (second > prefix.to) addInto(out, this.sumOf(series, prefix.to, second));
    return out;
  }

  /** The sum of a series' seconds [from, to), by one pass over them. */
  private sumOf(series: MountSeries, from: number, to: number): Counters {
    const sum = emptyCounters();
    for (const [s, v] of series.seconds) if (s >= from && s < to) addInto(sum, v);
    return sum;
  }
}
