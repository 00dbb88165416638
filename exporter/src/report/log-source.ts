// `jobio report FILE.jsonl`: the report of one `jobio run` log (docs/jobio-run.md "Log format"),
// from its job-total records: `diagnosis` (reasons, programs, hints, unseen), `jobsummary` (the
// red/yellow/green split), the all-mounts `mountpoint` total (metadata calls and their busiest
// second) and `resources` (CPU time, memory). Lines that are not JSON objects are counted and
// skipped; records of types it does not read are ignored, as Mistral tools do.
import { readFile } from 'node:fs/promises';
import type { DiagnosisJson } from '../profiler/diagnosis-schema.js';
import { parseSize } from '../run/run-options.js';
import { characterisationFromFrames, type LogFrame } from './characterisation.js';
import { findingsOf } from './findings.js';
import { REPORT_SCHEMA, type ReportJson } from './report-schema.js';
import { isRecord } from '../util/is-record.js';

/** A failure to report, with the message for the user (the command exits 1). */
export class ReportError extends Error {}
/** The server answered but has no series of the job (never had them, or they are past its retention). */
export class NoSeriesError extends ReportError {}

type Rec = Record<string, unknown>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const path = (r: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), r);

export interface ParsedLog {
  readonly records: readonly Rec[];
  readonly lines: number;
  readonly malformed: number;
}

export function parseLog(text: string): ParsedLog {
  const records: Rec[] = [];
  let lines = 0;
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    lines++;
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v)) records.push(v);
      else malformed++;
    } catch {
      malformed++;
    }
  }
  return { records, lines, malformed };
}

function asDiagnosis(r: Rec, file: string): DiagnosisJson {
  if (!Array.isArray(r['reasons']) || !Array.isArray(r['unseen']) || typeof r['runtime'] !== 'number')
    throw new ReportError(`${file}: the diagnosis record lacks reasons, unseen or runtime: not a log this jobio wrote`);
  return {
    reasons: (r['reasons'] as unknown[]).filter(isRecord) as unknown as DiagnosisJson['reasons'],
    runtime: r['runtime'],
    gain_threshold: num(r['gain_threshold']),
    unseen: (r['unseen'] as unknown[]).filter(isRecord) as unknown as DiagnosisJson['unseen'],
  };
}

/** The run's small threshold, from the name of its small size bin (`read_0-32KiB`); jobio run's default when no such key. */
function smallThreshold(records: readonly Rec[]): number {
  for (const r of records) {
    const io = path(r, 'io');
    if (!isRecord(io)) continue;
    for (const key of Object.keys(io)) {
      const m = /^(?:read|write)_0-(\d+[A-Za-z]*)$/.exec(key);
      // pow2 bins start at 0-1B: not a threshold
      if (m?.[1] !== undefined && m[1] !== '1B') {
        try {
          return parseSize(m[1], 'small threshold');
        } catch {
          // not a size: keep looking
        }
      }
    }
  }
  return 32 * 1024;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The all-mounts (`*`) records of each time frame, in the log's order: the client's I/O per frame. */
function frames(records: readonly Rec[]): LogFrame[] {
  return records
    .filter((r) => r['type'] === 'mountpoint' && r['jobtotal'] !== true && path(r, 'mountpoint', 'path') === '*')
    .map((r) => ({
      seconds: Number(/^(\d+)s$/.exec(typeof r['timeframe'] === 'string' ? r['timeframe'] : '')?.[1] ?? 0),
      endMs: typeof r['timestamp'] === 'string' ? Date.parse(r['timestamp']) : NaN,
      read: num(path(r, 'io', 'read_all', 'bytes', 'total')),
      write: num(path(r, 'io', 'write_all', 'bytes', 'total')),
    }))
    .filter((f) => f.seconds > 0 && Number.isFinite(f.endMs));
}

/** The report of the log's records (exported for tests; `reportFromLog` reads the file). */
export function reportFromRecords(file: string, log: ParsedLog): ReportJson {
  const totals = log.records.filter((r) => r['jobtotal'] === true);
  const diagnoses = totals.filter((r) => r['type'] === 'diagnosis');
  if (diagnoses.length === 0)
    throw new ReportError(`${file}: no diagnosis record (${log.records.length} record(s) read): not a \`jobio run --output\` log, a run that has not ended, or one written with \`diagnosis: no\``);
  if (diagnoses.length > 1) throw new ReportError(`${file}: ${diagnoses.length} runs wrote to this log (runs sharing an --output name): report one run per file (put %p in the name)`);
  const d = diagnoses[0] as Rec;
  const diagnosis = asDiagnosis(d, file);
  const all = totals.find((r) => r['type'] === 'mountpoint' && path(r, 'mountpoint', 'path') === '*');
  const summary = totals.find((r) => r['type'] === 'jobsummary');
  const resources = totals.find((r) => r['type'] === 'resources');

  const classCalls = (cls: string): number => num(path(summary, 'iosummary', cls, 'calls', 'iocount'));
  const calls = classCalls('red') + classCalls('yellow') + classCalls('green');
  const cls = (name: string) => ({ calls: classCalls(name), calls_share: calls > 0 ? Math.round((classCalls(name) / calls) * 1e6) / 1e6 : 0 });
  const peakMetadataRate = num(path(all, 'io', 'metadata', 'calls', 'max/s'));
  const metadataCalls = num(path(all, 'io', 'metadata', 'calls', 'total'));
  const { findings, verdict } = findingsOf({ diagnosis, peakMetadataRate, metadataCalls, smallThreshold: smallThreshold(log.records) });
  const cpu = path(resources, 'resources', 'job', 'cputotaltime', 'total');
  const rss = path(resources, 'resources', 'job', 'rssmem', 'max');
  const characterisation = characterisationFromFrames(frames(log.records));
  return {
    schema: REPORT_SCHEMA,
    source: { kind: 'log', file, lines: log.lines, malformed_lines: log.malformed },
    verdict,
    header: {
      jobid: typeof d['jobid'] === 'string' ? d['jobid'] : '',
      hostname: typeof d['hostname'] === 'string' ? d['hostname'] : '',
      start: iso(num(d['jobstarttime'])),
      end: iso(num(d['jobendtime'])),
      run_time: num(d['jobrealtime']) / 1e6,
      cpu_time: typeof cpu === 'number' ? cpu / 1e6 : null,
      peak_memory: typeof rss === 'number' ? rss : null,
      user: '',
      account: '',
      partition: '',
      job_name: '',
      work_dir: '',
      nodes: typeof d['hostname'] === 'string' && d['hostname'] !== '' ? [d['hostname']] : [],
    },
    findings,
    application: {
      red: cls('red'),
      yellow: cls('yellow'),
      green: cls('green'),
      calls,
      accumulated_run_time: diagnosis.runtime / 1e6,
      gain_threshold: diagnosis.gain_threshold,
      peak_metadata_rate: peakMetadataRate,
      reasons: diagnosis.reasons.map((r) => ({ class: r.class, reason: r.reason, mount: r.mount, program: r.program, calls: r.calls, bytes: r.bytes, share: r.share, gain: r.gain })),
      unseen: diagnosis.unseen,
    },
    ...(characterisation !== undefined ? { characterisation } : {}),
  };
}

export async function reportFromLog(file: string): Promise<ReportJson> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ReportError(e.code === 'ENOENT' ? `${file}: no such file` : e.code === 'EISDIR' ? `${file}: is a directory, not a log file` : `${file}: ${e.message}`);
  }
  return reportFromRecords(file, parseLog(text));
}
