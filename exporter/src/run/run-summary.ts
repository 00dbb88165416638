// The table `jobio run` prints to stderr when the command ends: red/yellow/green per class (calls, %,
// time, %), then per mount the reads and writes by size bin and the metadata calls.
import { CLASSES, CALL_TYPES, STDIO_FNS } from '../parsers/profiler-wire.js';
import type { Diagnosis } from '../profiler/diagnosis.js';
import { slot, type Counters } from '../profiler/counters.js';
import { classFigures, type ClassFigures } from '../profiler/mistral-records.js';
import { keyedValues, type IoKeyOptions } from '../profiler/mistral-io.js';
import type { MountSeries } from '../profiler/run-totals.js';

export interface SummaryInput {
  readonly command: string;
  readonly exitCode: number;
  readonly realTimeUs: number;
  readonly accumulatedRuntimeUs: number;
  readonly processes: number;
  readonly mounts: readonly MountSeries[];
  readonly total: Counters;
  readonly io: IoKeyOptions;
  readonly droppedFrames: number;
  readonly rejected: number;
  /** socket calls whose peer address went into the network total only (beyond the addresses a process keeps apart) */
  readonly networkFolded?: number;
  readonly diagnosis?: Diagnosis;
}

/** Reasons shown in the summary (the --output diagnosis record has them all). */
export const SUMMARY_REASONS = 8;

export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${v} B` : `${v.toFixed(1)} ${units[u]}`;
}

export function humanSeconds(us: number): string {
  const s = us / 1e6;
  return s >= 100 ? `${s.toFixed(0)} s` : s >= 1 ? `${s.toFixed(2)} s` : `${(s * 1000).toFixed(3)} ms`;
}

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const pct = (part: number, whole: number): string => (whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '-');

function classTable(f: ClassFigures, minSampled: number): string {
  const calls = f.calls.reduce((a, b) => a + b, 0);
  const timeUs = f.timeNs.reduce((a, b) => a + b, 0) / 1000;
  const timed = f.sampled >= minSampled && f.sampled > 0;
  const rows = [['class', 'calls', 'calls %', 'time', 'time %']];
  CLASSES.forEach((cls, k) => {
    const us = (f.timeNs[k] ?? 0) / 1000;
    rows.push([cls, String(f.calls[k] ?? 0), pct(f.calls[k] ?? 0, calls), timed ? humanSeconds(us) : '-', timed ? pct(us, timeUs) : '-']);
  });
  rows.push(['total', String(calls), calls > 0 ? '100.0 %' : '-', timed ? humanSeconds(timeUs) : '-', timed && timeUs > 0 ? '100.0 %' : '-']);
  return table(rows);
}

function mountTable(mounts: readonly MountSeries[], io: IoKeyOptions): string {
  const rows = [['mount', 'fstype', 'reads', 'read bytes', 'writes', 'write bytes', 'metadata', 'seeks']];
  const detail: string[] = [];
  for (const m of mounts) {
    const kv = keyedValues(m.total, io);
    const get = (key: string) => kv.get(key) ?? { calls: 0, bytes: 0 };
    rows.push([
      m.info.path,
      m.info.fstype,
      String(get('read_all').calls),
      humanBytes(get('read_all').bytes ?? 0),
      String(get('write_all').calls),
      humanBytes(get('write_all').bytes ?? 0),
      String(get('metadata').calls),
      String(get('seek').calls),
    ]);
    for (const dir of ['read', 'write']) {
      const bins = [...kv.entries()]
        .filter(([k, v]) => k.startsWith(`${dir}_`) && k !== `${dir}_all` && v.calls > 0)
        .map(([k, v]) => `${k.slice(dir.length + 1)}: ${v.calls} (${humanBytes(v.bytes ?? 0)})`);
      if (bins.length > 0) detail.push(`  ${m.info.path} ${dir}s by size  ${bins.join(', ')}`);
    }
  }
  return table(rows) + (detail.length > 0 ? `\n${detail.join('\n')}` : '');
}

/** Calls counted by call type (non-zero only), e.g. "write 1000, open 3, close 3". */
function callMix(total: Counters): string {
  const parts: string[] = [];
  CALL_TYPES.forEach((name, c) => {
    let n = 0;
    for (let k = 0; k < CLASSES.length; k++) n += total[slot.calls(c, k)] ?? 0;
    if (n > 0) parts.push(`${name} ${n}`);
  });
  return parts.join(', ') || 'none';
}

/** Per mount with stdio use: the application's stdio calls next to what reached the file system. */
function stdioLines(mounts: readonly MountSeries[]): string[] {
  const out: string[] = [];
  const avg = (bytes: number, calls: number): string => (calls > 0 ? humanBytes(Math.round(bytes / calls)) : '0 B');
  for (const m of mounts) {
    const parts: string[] = [];
    STDIO_FNS.forEach((fn, f) => {
      const calls = m.total[slot.stdioCalls(f)] ?? 0;
      if (calls > 0) parts.push(`${calls.toLocaleString('en-US')} ${fn} (${avg(m.total[slot.stdioBytes(f)] ?? 0, calls)})`);
    });
    const moved = STDIO_FNS.some((fn, f) => fn !== 'fflush' && (m.total[slot.stdioCalls(f)] ?? 0) > 0);
    if (!moved) continue;
    const fs = (d: number): [number, number] => {
      let calls = 0;
      let bytes = 0;
      for (let b = 0; b < 3; b++) {
        calls += m.total[slot.sizedCalls(d, b)] ?? 0;
        bytes += m.total[slot.sizedBytes(d, b)] ?? 0;
      }
      // 0-byte transfers (end of file) are in power-of-two bin 0 only, not in a named size bin
      return [calls + (m.total[slot.pow2Calls(d, 0)] ?? 0), bytes];
    };
    const [r, rb] = fs(0);
    const [w, wb] = fs(1);
    out.push(
      `  ${m.info.path} stdio calls (average size): ${parts.join(', ')}; the file system saw ${r.toLocaleString('en-US')} reads (${avg(rb, r)}) and ${w.toLocaleString('en-US')} writes (${avg(wb, w)}) in all`,
    );
  }
  return out;
}

/** "12.0 ms ± 3.1 ms" (the bound from sampling; none when every call was timed). */
function timeWithError(timeNs: number, errorNs: number): string {
  return errorNs > 0 ? `${humanSeconds(timeNs / 1000)} ± ${humanSeconds(errorNs / 1000)}` : humanSeconds(timeNs / 1000);
}

function reasonLines(d: Diagnosis, minSampled: number, timed: boolean): string[] {
  if (d.reasons.length === 0) return [];
  const top = d.reasons.slice(0, SUMMARY_REASONS);
  const rows = [['class', 'reason', 'program', 'mount', 'calls', 'bytes', 'time (95 %)', 'of run']];
  for (const r of top)
    rows.push([
      r.cls,
      r.reason,
      r.program.component !== undefined ? `${r.program.name} [${r.program.component}]` : r.program.name,
      r.mount,
      r.calls.toLocaleString('en-US'),
      humanBytes(r.bytes),
      timed ? timeWithError(r.timeNs, r.timeErrorNs) : '-',
      r.share !== undefined ? pct(r.share, 1) : '-',
    ]);
  const lines = [
    '',
    `why calls were red or yellow (those with something to gain first, then by calls${d.reasons.length > top.length ? `; ${top.length} of ${d.reasons.length}` : ''}${timed ? (top.some((r) => r.share === undefined) ? '; no share where the bound exceeds half the time' : '') : `; times not reported below ${Math.max(1, minSampled)} timed calls`}):`,
    table(rows),
  ];
  for (const r of top) lines.push(`  - ${r.hint}`);
  return lines;
}

export function formatSummary(s: SummaryInput): string {
  const f = classFigures(s.total);
  const ioUs = f.timeNs.reduce((a, b) => a + b, 0) / 1000;
  const timed = f.sampled >= s.io.minSampled && f.sampled > 0;
  const lines = [
    `jobio run: ${s.command} (exit status ${s.exitCode})`,
    `run time ${humanSeconds(s.realTimeUs)}, accumulated run time ${humanSeconds(s.accumulatedRuntimeUs)} over ${s.processes} process(es), ` +
      (timed ? `I/O time ${humanSeconds(ioUs)}, I/O ${pct(ioUs, s.realTimeUs)} of run time` : `I/O time not reported (${f.sampled} call(s) timed, fewer than ${Math.max(1, s.io.minSampled)})`),
    `calls: ${callMix(s.total)}`,
    '',
    classTable(f, s.io.minSampled),
    '',
    s.mounts.length > 0 ? mountTable(s.mounts, s.io) : 'no I/O on file systems was recorded',
    ...stdioLines(s.mounts),
    ...(s.diagnosis ? reasonLines(s.diagnosis, s.io.minSampled, timed) : []),
  ];
  if (s.diagnosis && s.diagnosis.unseen.length > 0) {
    lines.push('', 'not seen by the profiler:');
    for (const u of s.diagnosis.unseen) lines.push(`  ${u.kind}: ${u.detail}`);
  }
  if ((s.networkFolded ?? 0) > 0) lines.push('', `note: ${s.networkFolded} socket call(s) went to more peer addresses than a process keeps apart: counted in the network total (address "*") only`);
  if (s.droppedFrames > 0 || s.rejected > 0) lines.push('', `warning: ${s.droppedFrames} record(s) could not be sent by the processes and ${s.rejected} were rejected: figures may be incomplete`);
  return lines.join('\n') + '\n';
}
