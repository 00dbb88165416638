// The summary of a job's report stored at its end (`jobio report JOBID --summary`, written by the
// Slurm EpilogSlurmctld into a directory a site can archive, docs/report.md), so the report still
// works after the job's series are gone from Prometheus (its retention). The summary is the report's
// JSON itself, its lists bounded so a file stays small whatever the job did; it is read back only
// from a file that root alone could have written (a user who could plant one would choose what
// another user's report says), and only for the job id it names.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { JOBID_TEXT } from '../labels/process-job.js';
import { readRootOnlyFile, rootOnly } from '../util/root-only-file.js';
import { ReportError } from './log-source.js';
import { REPORT_SCHEMA, type ReportJson } from './report-schema.js';

/** Where the epilog stores summaries and `jobio report` looks for them by default. */
export const DEFAULT_SUMMARY_DIR = '/var/lib/jobio/reports';
/** A stored summary is at most this big (its lists are bounded below; a bigger file is not one of ours). */
export const MAX_SUMMARY_BYTES = 256 * 1024;
/** The bounds of the stored lists: the most costly findings and reasons, the targets by load, the client's mounts by bytes. */
export const SUMMARY_LIMITS = { findings: 10, reasons: 20, unseen: 10, targets: 64, client_mounts: 16 } as const;

/** The summary of a report from Prometheus: the same JSON, its lists cut to SUMMARY_LIMITS. */
export function summaryOf(report: ReportJson): ReportJson {
  if (report.source.kind !== 'prometheus') throw new ReportError('--summary stores a report of a job id from Prometheus (a log file is its own record)');
  const a = report.application;
  const fs = report.file_system;
  // targets by what the job put on them, MDTs first as in the report
  const targets = fs === undefined ? [] : [...fs.targets].sort((x, y) => y.operations + y.read_bytes + y.write_bytes - (x.operations + x.read_bytes + x.write_bytes)).slice(0, SUMMARY_LIMITS.targets);
  return {
    ...report,
    findings: report.findings.slice(0, SUMMARY_LIMITS.findings),
    application: { ...a, reasons: a.reasons.slice(0, SUMMARY_LIMITS.reasons), unseen: a.unseen.slice(0, SUMMARY_LIMITS.unseen) },
    ...(fs !== undefined ? { file_system: { ...fs, targets: fs.targets.filter((t) => targets.includes(t)) } } : {}),
    ...(report.client !== undefined ? { client: { ...report.client, mounts: report.client.mounts.slice(0, SUMMARY_LIMITS.client_mounts) } } : {}),
  };
}

/** The summary's file name in its directory; undefined for a job id that cannot be one (no path tricks). */
export function summaryFile(dir: string, jobid: string): string | undefined {
  return JOBID_TEXT.test(jobid) ? join(dir, `${jobid}.json`) : undefined;
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The stored report of `jobid` from `dir`, its source saying so; undefined when there is none. Throws
 * ReportError for a summary that is there but not believed (not root's alone, too big, not a report
 * of this job): said, never shown.
 */
export async function readSummary(dir: string, jobid: string): Promise<ReportJson | undefined> {
  const file = summaryFile(dir, jobid);
  if (file === undefined) return undefined;
  let st;
  try {
    st = await lstat(dir);
  } catch {
    return undefined;
  }
  if (!st.isDirectory() || !rootOnly(st))
    throw new ReportError(`${dir}: the summary directory is not root's alone (owner uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)}): its summaries are not believed`);
  const read = await readRootOnlyFile(file, MAX_SUMMARY_BYTES);
  if ('rejected' in read) {
    if (read.rejected === 'missing') return undefined;
    const why = { untrusted_file: 'not a regular file that root alone can write', too_big: `bigger than ${MAX_SUMMARY_BYTES} bytes`, unreadable: 'unreadable' }[read.rejected];
    throw new ReportError(`${file}: the stored summary is ${why}: not believed`);
  }
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch {
    throw new ReportError(`${file}: the stored summary is not JSON`);
  }
  const source = isObject(json) ? json['source'] : undefined;
  const header = isObject(json) ? json['header'] : undefined;
  const application = isObject(json) ? json['application'] : undefined;
  if (
    !isObject(json) ||
    json['schema'] !== REPORT_SCHEMA ||
    !isObject(source) ||
    source['kind'] !== 'prometheus' ||
    !isObject(header) ||
    header['jobid'] !== jobid ||
    !isObject(json['verdict']) ||
    !Array.isArray(json['findings']) ||
    !isObject(application) ||
    !Array.isArray(application['reasons']) ||
    !Array.isArray(application['unseen'])
  )
    throw new ReportError(`${file}: not a stored ${REPORT_SCHEMA} report of job ${jobid}`);
  const report = json as unknown as ReportJson;
  return { ...report, source: { kind: 'stored', file, stored: report.source as Extract<ReportJson['source'], { kind: 'prometheus' }> } };
}
