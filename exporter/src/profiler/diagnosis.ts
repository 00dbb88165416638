// The job's diagnosis: every red and yellow call's reason per mount (largest estimated time first),
// and what the profiler could not see (processes that ran without it, asynchronous I/O it could not
// count, file mappings). Shown by `jobio run` in its summary and written as the jobio extension
// record `{"type": "diagnosis", "jobtotal": true, ...}` (Mistral tools skip unknown types).
import { common, type JobTimes, type RecordContext } from './mistral-records.js';
import { hintFor, reasonsOf, size, type Reason, type ReasonClass } from './reasons.js';
import type { MountInfo } from './process-table.js';
import type { UnseenTotals } from './run-totals.js';
import type { Counters } from './counters.js';

export interface DiagnosedReason {
  readonly cls: ReasonClass;
  readonly reason: Reason;
  readonly mount: string;
  readonly calls: number;
  readonly bytes: number;
  readonly timeNs: number;
  readonly hint: string;
}

export type UnseenKind = 'not_profiled' | 'async_io' | 'mmap_io';

export interface UnseenEntry {
  readonly kind: UnseenKind;
  readonly processes: number;
  readonly detail: string;
}

export interface Diagnosis {
  readonly reasons: readonly DiagnosedReason[];
  readonly unseen: readonly UnseenEntry[];
}

export interface DiagnosisInput {
  /** file-system mounts (not the network pseudo mount): their totals */
  readonly mounts: readonly { readonly info: MountInfo; readonly total: Counters }[];
  readonly unseen: UnseenTotals;
  /** programs exec'd by profiled processes that never reported */
  readonly unprofiledExecs: readonly string[];
  /** the command itself never reported (static or setuid) */
  readonly commandUnprofiled?: string;
  readonly smallThreshold: number;
}

export function diagnose(input: DiagnosisInput): Diagnosis {
  const reasons: DiagnosedReason[] = [];
  for (const m of input.mounts) {
    for (const f of reasonsOf(m.total)) reasons.push({ ...f, mount: m.info.path, hint: hintFor(f, m.info.path, input.smallThreshold) });
  }
  reasons.sort((a, b) => b.timeNs - a.timeNs || b.calls - a.calls || a.reason.localeCompare(b.reason));

  const unseen: UnseenEntry[] = [];
  const programs = [...(input.commandUnprofiled !== undefined ? [input.commandUnprofiled] : []), ...input.unprofiledExecs];
  if (programs.length > 0) {
    const names = [...new Set(programs)];
    unseen.push({
      kind: 'not_profiled',
      processes: programs.length,
      detail: `${programs.length} process(es) ran without the profiler (static or setuid programs, a cleared environment, or excluded): ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', ...' : ''}; their I/O is not in these figures`,
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
      detail: `${parts.join(' and ')}: the I/O they carried is not counted${u.libaioIocbs > 0 ? ` (the ${u.libaioIocbs} libaio request(s) are counted)` : ''}`,
    });
  }
  if (u.mmapBytes > 0) {
    unseen.push({
      kind: 'mmap_io',
      processes: u.mmapProcesses,
      detail: `${size(u.mmapBytes)} of files mapped into memory: the bytes read or written through the mappings are unknown`,
    });
  }
  return { reasons, unseen };
}

/** The job-total `diagnosis` record (time in µs, estimated). */
export function diagnosisRecord(ctx: RecordContext, d: Diagnosis, times: JobTimes): Record<string, unknown> {
  return {
    ...common(ctx, 'diagnosis', times.endMs, times),
    reasons: d.reasons.map((r) => ({ class: r.cls, reason: r.reason, mount: r.mount, calls: r.calls, bytes: r.bytes, time: Math.round(r.timeNs / 1000), hint: r.hint })),
    unseen: d.unseen.map((e) => ({ kind: e.kind, processes: e.processes, detail: e.detail })),
  };
}
