// The job's diagnosis: every red and yellow call's reason per program and mount, with its share of
// the run time, whether there is anything to gain, and a hint addressed to that program (hints.ts);
// and what the profiler could not see (processes that ran without it, asynchronous I/O it could not
// count, file mappings). Shown by `jobio run` in its summary and written as the jobio extension
// record `{"type": "diagnosis", "jobtotal": true, ...}` (Mistral tools skip unknown types).
import { common, jobStampMs, type JobTimes, type RecordContext } from './mistral-records.js';
import { reasonsOf, type Reason, type ReasonClass, type ReasonFigure } from './reasons.js';
import { hintFor, size } from './hints.js';
import type { Program } from './programs.js';
import type { UnseenTotals } from './run-totals.js';
import { slot, type Counters } from './counters.js';
import { CALL_TYPES, CLASSES, type CallType } from '../parsers/profiler-wire.js';
import type { DiagnosisJson, DiagnosisReasonJson, DiagnosisUnseenJson } from './diagnosis-schema.js';
import type { MountInfo } from './process-table.js';

/**
 * A reason whose time, even at the upper end of its interval, is below this share of the run time has
 * nothing to gain: its hint says so instead of giving advice (docs/profiler.md "Reasons").
 */
export const GAIN_THRESHOLD = 0.01;
/** z of the two-sided 95 % interval of the sampled time estimate. */
const Z95 = 1.96;
/**
 * A reason's time is an estimate to decide on (its share, "nothing to gain") only when the half-width
 * of its 95 % interval is at most this part of it: with 1 call in 16 timed, about 15 of its calls
 * timed. Below, the figure rests on a few timed calls, each counted 16 times (docs/profiler.md "Reasons").
 */
export const MAX_RELATIVE_ERROR = 0.5;

export interface DiagnosedReason {
  readonly cls: ReasonClass;
  readonly reason: Reason;
  readonly mount: string;
  readonly program: Program;
  readonly calls: number;
  readonly bytes: number;
  readonly timeNs: number;
  /** half-width of the 95 % interval of timeNs from sampling (0 when every call was timed) */
  readonly timeErrorNs: number;
  /** timeNs / the run time; undefined when times are not reported */
  readonly share: number | undefined;
  readonly gain: boolean;
  readonly hint: string;
}

export type UnseenKind = 'not_profiled' | 'async_io' | 'mmap_io';

export interface UnseenEntry {
  readonly kind: UnseenKind;
  readonly processes: number;
  /** bytes known to be out of sight (mmap_io: the mapped length), 0 when unknown */
  readonly bytes: number;
  readonly detail: string;
}

export interface Diagnosis {
  readonly reasons: readonly DiagnosedReason[];
  readonly unseen: readonly UnseenEntry[];
  /** what shares are of: the processes' accumulated run time, ns */
  readonly runtimeNs: number;
}

export interface DiagnosisInput {
  /** file-system mounts (not the network pseudo mount): the totals of each program on each */
  readonly programs: readonly { readonly program: Program; readonly info: MountInfo; readonly total: Counters }[];
  readonly unseen: UnseenTotals;
  /** programs exec'd by profiled processes that never reported */
  readonly unprofiledExecs: readonly string[];
  /** processes of another user refused by the run's socket beyond those named one by one: counted only */
  readonly unprofiledUnnamed?: number;
  /** the command itself never reported (static or setuid) */
  readonly commandUnprofiled?: string;
  readonly smallThreshold: number;
  /** the processes' accumulated run time, ns: the base of each reason's share */
  readonly runtimeNs: number;
  /** false when too few calls were timed for times to be reported (--min-sampled): no shares then */
  readonly timed: boolean;
}

/** Calls of one call type: all of them (every class) and those whose duration was measured. */
export interface TimedCount {
  readonly calls: number;
  readonly timed: number;
}

/**
 * The fraction of the calls that were timed (1: every call): of every call type, as the sampler times
 * one call in n of all a thread's calls whatever their type. (Of the reason's own call types alone,
 * one seek that happened to be timed made it 1 of 1, "every call timed", and its time, 16 times the
 * call's, exact.)
 */
function timedFraction(countOf: (call: CallType) => TimedCount): number {
  let calls = 0;
  let timed = 0;
  for (const t of CALL_TYPES) {
    const n = countOf(t);
    calls += n.calls;
    timed += n.timed;
  }
  return calls > 0 ? Math.min(1, timed / calls) : 0;
}

/** Every call in a mount's counters, of every type and class, with their estimated time. */
function allCallsIn(v: Counters): AllCalls {
  let calls = 0;
  let timeNs = 0;
  for (let c = 0; c < CALL_TYPES.length; c++) {
    for (let k = 0; k < CLASSES.length; k++) {
      calls += v[slot.calls(c, k)] ?? 0;
      timeNs += v[slot.timeNs(c, k)] ?? 0;
    }
  }
  return { calls, timeNs };
}

/** A call type's counts in a mount's counters. */
function countIn(v: Counters, call: CallType): TimedCount {
  const c = CALL_TYPES.indexOf(call);
  let calls = 0;
  for (let k = 0; k < CLASSES.length; k++) calls += v[slot.calls(c, k)] ?? 0;
  return { calls, timed: v[slot.sampled(c)] ?? 0 };
}

/**
 * Half-width of the 95 % interval of a reason's sampled time estimate: with a fraction f of its n calls
 * timed (f·n of them), the estimate's relative standard error is at most cv·sqrt((1 − f)/(f·n)) for
 * durations whose standard deviation is cv times their mean; taken with cv = 1. 0 when every call was timed.
 */
export function timeError(timeNs: number, calls: number, fraction: number): number {
  if (fraction >= 1 || timeNs <= 0) return 0;
  return Z95 * timeNs * relativeError(calls, fraction);
}

/** The relative half-width of the interval: Z95·sqrt((1 − f)/(f·n)), whatever the time (0 when every call was timed). */
function relativeError(calls: number, fraction: number): number {
  if (fraction >= 1) return 0;
  if (fraction <= 0 || calls <= 0) return Infinity;
  return Math.sqrt((1 - fraction) / Math.max(1, fraction * calls));
}

/** The time of a reason: its error bound, whether the estimate is precise enough to decide on, and the timed fraction. */
export interface ReasonTiming {
  readonly errorNs: number;
  readonly reliable: boolean;
  readonly fraction: number;
}

/**
 * A reason's time error and reliability from the timed calls (a `jobio run` log: the program's on the
 * mount; the exporter's series: the job's, which carry no mount or program for timed calls). A time of
 * 0 from calls none of which was timed is no measurement: unreliable like any other too few.
 */
export function reasonTiming(timeNs: number, calls: number, countOf: (call: CallType) => TimedCount): ReasonTiming {
  const f = timedFraction(countOf);
  return { errorNs: timeError(timeNs, calls, f), reliable: Z95 * relativeError(calls, f) <= MAX_RELATIVE_ERROR, fraction: f };
}

/** The estimated time and the number of all the calls a reason's were counted with (a program's on a mount, or a job's). */
export interface AllCalls {
  readonly timeNs: number;
  readonly calls: number;
}

/**
 * Whether a reason has something to gain: from its own time when that is precise enough; otherwise
 * (a few of its calls timed: one timed seek counts 16 times, an untimed one 0) from its calls at the
 * mean time of all the calls counted with it, whose many timed calls make that mean precise (the upper
 * end of the mean's interval). So a few calls among many decide "nothing to gain" as they should,
 * whichever of them the sampler happened to time. Unmeasured (no mean to trust): something to gain.
 */
export function reasonGain(timeNs: number, timing: ReasonTiming, calls: number, all: AllCalls, runtimeNs: number): boolean {
  if (runtimeNs <= 0) return true;
  if (timing.reliable) return hasGain(timeNs, timing.errorNs, runtimeNs);
  const relative = relativeError(all.calls, timing.fraction);
  if (all.calls <= 0 || !Number.isFinite(relative)) return true;
  const typicalNs = (calls * all.timeNs) / all.calls;
  return hasGain(typicalNs, Z95 * typicalNs * relative, runtimeNs);
}

/** Something to gain: the time at the upper end of its interval is at least GAIN_THRESHOLD of the run time. */
export function hasGain(timeNs: number, timeErrorNs: number, runtimeNs: number): boolean {
  return (timeNs + timeErrorNs) / runtimeNs >= GAIN_THRESHOLD;
}

/** Gain first, then by calls, bytes, reason, program and mount: counts, which sampling noise cannot reorder. */
function order(a: DiagnosedReason, b: DiagnosedReason): number {
  return (
    Number(b.gain) - Number(a.gain) ||
    b.calls - a.calls ||
    b.bytes - a.bytes ||
    a.reason.localeCompare(b.reason) ||
    a.program.name.localeCompare(b.program.name) ||
    (a.program.component ?? '').localeCompare(b.program.component ?? '') ||
    a.mount.localeCompare(b.mount)
  );
}

export function diagnose(input: DiagnosisInput): Diagnosis {
  const reasons: DiagnosedReason[] = [];
  // every call of the job (as a report from Prometheus has them: the exporter's series are per job)
  const all = input.programs.reduce<AllCalls>(
    (a, m) => {
      const c = allCallsIn(m.total);
      return { calls: a.calls + c.calls, timeNs: a.timeNs + c.timeNs };
    },
    { calls: 0, timeNs: 0 },
  );
  for (const m of input.programs) {
    const figures = reasonsOf(m.total);
    const fewByteOpens = figures.find((f) => f.reason === 'open_few_bytes')?.calls ?? 0;
    const deletes = m.total[slot.calls(CALL_TYPES.indexOf('delete'), CLASSES.indexOf('yellow'))] ?? 0;
    for (const f of figures) reasons.push(judge(f, m.program, m.info, m.total, all, { fewByteOpens, deletes }, input));
  }
  reasons.sort(order);

  const unseen: UnseenEntry[] = [];
  const programs = [...(input.commandUnprofiled !== undefined ? [input.commandUnprofiled] : []), ...input.unprofiledExecs];
  const unnamed = input.unprofiledUnnamed ?? 0;
  if (programs.length + unnamed > 0) {
    const names = [...new Set(programs)];
    if (unnamed > 0) names.push(`${unnamed} more run as another user`);
    const processes = programs.length + unnamed;
    unseen.push({
      kind: 'not_profiled',
      processes,
      bytes: 0,
      detail: `${processes} process(es) ran without the profiler (static or setuid programs, a cleared environment, excluded, or run as another user): ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', ...' : ''}; their I/O is not in these figures`,
    });
  }
  const u = input.unseen;
  if (u.ioUringSetups > 0 || u.posixAioCalls > 0) {
    const parts: string[] = [];
    if (u.ioUringSetups > 0) parts.push(`${u.ioUringSetups} io_uring ring(s) set up`);
    if (u.posixAioCalls > 0) parts.push(`${u.posixAioCalls} POSIX AIO request(s)`);
    unseen.push({
      kind: 'async_io',
      processes: Math.max(u.ioUringProcesses, u.posixAioProcesses),
      bytes: 0,
      detail: `${parts.join(' and ')}: the I/O they carried is not counted${u.libaioIocbs > 0 ? ` (the ${u.libaioIocbs} libaio request(s) are counted)` : ''}`,
    });
  }
  if (u.mmapBytes > 0) {
    unseen.push({
      kind: 'mmap_io',
      processes: u.mmapProcesses,
      bytes: u.mmapBytes,
      detail: `${size(u.mmapBytes)} of files mapped into memory: the bytes read or written through the mappings are unknown`,
    });
  }
  return { reasons, unseen, runtimeNs: input.runtimeNs };
}

function judge(f: ReasonFigure, program: Program, info: MountInfo, total: Counters, all: AllCalls, others: { fewByteOpens: number; deletes: number }, input: DiagnosisInput): DiagnosedReason {
  const mount = info.path;
  const timing = reasonTiming(f.timeNs, f.calls, (call) => countIn(total, call));
  const timeErrorNs = timing.errorNs;
  // an estimate resting on a few timed calls gives no share (no severity from it); whether there is
  // anything to gain is then judged from the mean time of the job's calls
  const share = input.timed && timing.reliable && input.runtimeNs > 0 ? f.timeNs / input.runtimeNs : undefined;
  const gain = !input.timed || reasonGain(f.timeNs, timing, f.calls, all, input.runtimeNs);
  const hint = hintFor(f, { mount, fstype: info.fstype, small: input.smallThreshold, program, gain, ...others, ...(share !== undefined ? { share } : {}) });
  return { cls: f.cls, reason: f.reason, mount, program, calls: f.calls, bytes: f.bytes, timeNs: f.timeNs, timeErrorNs, share, gain, hint };
}

const us = (ns: number): number => Math.round(ns / 1000);

/** One reason as the log writes it (diagnosis-schema.ts). */
export function reasonJson(r: DiagnosedReason): DiagnosisReasonJson {
  const { family: _family, ...program } = r.program;
  return {
    class: r.cls,
    reason: r.reason,
    mount: r.mount,
    program,
    calls: r.calls,
    bytes: r.bytes,
    time: us(r.timeNs),
    time_error: us(r.timeErrorNs),
    share: r.share === undefined ? null : Math.round(r.share * 1e6) / 1e6,
    gain: r.gain,
    hint: r.hint,
  };
}

/** The job-total `diagnosis` record (times in µs, estimated). */
export function diagnosisRecord(ctx: RecordContext, d: Diagnosis, times: JobTimes): Record<string, unknown> {
  const body: DiagnosisJson = {
    reasons: d.reasons.map(reasonJson),
    runtime: us(d.runtimeNs),
    gain_threshold: GAIN_THRESHOLD,
    unseen: d.unseen.map((e): DiagnosisUnseenJson => ({ kind: e.kind, processes: e.processes, bytes: e.bytes, detail: e.detail })),
  };
  return { ...common(ctx, 'diagnosis', jobStampMs(times), times), ...body };
}
