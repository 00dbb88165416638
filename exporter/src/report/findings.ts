// From a job's diagnosis (the reasons `jobio run` and the exporter already attribute to programs, with
// their hints) to `jobio report`'s verdict and findings: which reasons are worth changing, and how
// much (high / medium / low). A reason is a finding when it costs run time (its share is at or above
// the gain threshold, as its hint says) or when it loads the metadata server, which every job
// shares: a metadata storm is a finding even when it is 1 % of the job's own run time.
import type { DiagnosisJson, DiagnosisReasonJson } from '../profiler/diagnosis-schema.js';
import { hintFor, size } from '../profiler/hints.js';
import { COMPONENTS, programOf, type Component } from '../profiler/programs.js';
import type { Reason } from '../profiler/reasons.js';
import { SEVERITIES, type ReportFindingJson, type ReportVerdictJson, type Severity, type SeverityCause } from './report-schema.js';
import { isMetadataReason, whyFor } from './why.js';

/** Share of the run time from which a reason is high, medium (below: low, down to the gain threshold). */
export const SHARE_HIGH = 0.1;
export const SHARE_MEDIUM = 0.03;
/**
 * Metadata operations per second from which a reason is high: the rate of the JobioMetadataStorm
 * alert (provisioning/prometheus/rules/jobio-alerts.yml), one job's storm that slows everyone.
 */
export const METADATA_RATE_HIGH = 5000;
export const METADATA_RATE_MEDIUM = 2000;
export const METADATA_RATE_LOW = 1000;

/** What a report's findings are computed from, whatever the source (a `jobio run` log, Prometheus). */
export interface FindingsInput {
  readonly diagnosis: DiagnosisJson;
  /** Metadata operations of the job's busiest second. */
  readonly peakMetadataRate: number;
  /** All metadata operations of the job (the base of each reason's part of the peak). */
  readonly metadataCalls: number;
  /** The small-transfer threshold of the run, bytes (for hints worded again). */
  readonly smallThreshold: number;
}

const rank = (s: Severity | undefined): number => (s === undefined ? SEVERITIES.length : SEVERITIES.indexOf(s));

function byShare(r: DiagnosisReasonJson): Severity | undefined {
  if (!r.gain) return undefined;
  // gain without a share: times not reported; nothing declared harmless unmeasured, so low
  if (r.share === null) return 'low';
  return r.share >= SHARE_HIGH ? 'high' : r.share >= SHARE_MEDIUM ? 'medium' : 'low';
}

function byRate(rate: number | null): Severity | undefined {
  if (rate === null) return undefined;
  return rate >= METADATA_RATE_HIGH ? 'high' : rate >= METADATA_RATE_MEDIUM ? 'medium' : rate >= METADATA_RATE_LOW ? 'low' : undefined;
}

/** The reason's part of the job's busiest second of metadata operations (calls in proportion). */
function metadataRate(r: DiagnosisReasonJson, input: FindingsInput): number | null {
  if (!isMetadataReason(r.reason)) return null;
  if (input.metadataCalls <= 0) return 0;
  return input.peakMetadataRate * Math.min(1, r.calls / input.metadataCalls);
}

export const pct = (share: number): string => `${(share * 100).toFixed(share < 0.001 ? 2 : 1)} %`;
export const count = (n: number): string => Math.round(n).toLocaleString('en-US');

function seen(r: DiagnosisReasonJson, rate: number | null): string {
  const parts = [`${count(r.calls)} ${r.class} ${r.reason} call${r.calls === 1 ? '' : 's'} on ${r.mount}`];
  if (r.bytes > 0) parts.push(`${size(r.bytes)} moved`);
  parts.push(r.share === null ? 'time not reported' : `${(r.time / 1e6).toFixed(3)} s ± ${(r.time_error / 1e6).toFixed(3)} s, ${pct(r.share)} of the run time`);
  if (rate !== null && rate >= 1) parts.push(`about ${count(rate)} metadata ops/s at the busiest second`);
  return parts.join(', ');
}

/**
 * The advice of a reason that has nothing to gain in run time but loads the metadata server: its
 * hint in the log says "nothing to gain" (of the run time), so it is worded again by the same
 * program-aware hints with the gain.
 */
function adviceHint(r: DiagnosisReasonJson, input: FindingsInput): string {
  const component: Component | undefined = COMPONENTS.find((c) => c === r.program.component);
  const program = programOf(r.program.name, r.program.path, component);
  const fewByteOpens = input.diagnosis.reasons.find(
    (o) => o.reason === 'open_few_bytes' && o.mount === r.mount && o.program.name === r.program.name && o.program.path === r.program.path && o.program.component === r.program.component,
  );
  return hintFor(
    { cls: r.class, reason: r.reason as Reason, calls: r.calls, bytes: r.bytes, timeNs: r.time * 1000 },
    { mount: r.mount, small: input.smallThreshold, program, gain: true, fewByteOpens: fewByteOpens?.calls ?? 0, ...(r.share !== null ? { share: r.share } : {}) },
  );
}

function finding(r: DiagnosisReasonJson, input: FindingsInput): ReportFindingJson | undefined {
  const rate = metadataRate(r, input);
  const fromShare = byShare(r);
  const fromRate = byRate(rate);
  if (fromShare === undefined && fromRate === undefined) return undefined;
  const severityFrom: SeverityCause = rank(fromRate) < rank(fromShare) ? 'metadata_rate' : 'run_time';
  const severity = (severityFrom === 'metadata_rate' ? fromRate : fromShare) as Severity;
  return {
    severity,
    severity_from: severityFrom,
    class: r.class,
    reason: r.reason,
    mount: r.mount,
    program: r.program,
    calls: r.calls,
    bytes: r.bytes,
    time: r.time / 1e6,
    time_error: r.time_error / 1e6,
    share: r.share,
    metadata_rate: rate === null ? null : Math.round(rate * 10) / 10,
    seen: seen(r, rate),
    why: whyFor(r.reason),
    hint: r.gain ? r.hint : adviceHint(r, input),
  };
}

/** Most costly first: severity, then share of the run time, then metadata rate, then calls (then the log's order). */
function order(a: ReportFindingJson, b: ReportFindingJson): number {
  return rank(a.severity) - rank(b.severity) || (b.share ?? 0) - (a.share ?? 0) || (b.metadata_rate ?? 0) - (a.metadata_rate ?? 0) || b.calls - a.calls;
}

/** The verdict and findings of the diagnosis's reasons, with `more` findings from elsewhere (the file system's view). */
export function findingsOf(input: FindingsInput, more: readonly ReportFindingJson[] = []): { findings: ReportFindingJson[]; verdict: ReportVerdictJson } {
  const fromReasons = input.diagnosis.reasons.map((r) => finding(r, input)).filter((f): f is ReportFindingJson => f !== undefined);
  const findings = [...fromReasons, ...more];
  findings.sort(order);
  const n = (s: Severity): number => findings.filter((f) => f.severity === s).length;
  const counts = { high: n('high'), medium: n('medium'), low: n('low') };
  const text =
    findings.length === 0
      ? 'nothing to change'
      : `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${SEVERITIES.filter((s) => counts[s] > 0)
          .map((s) => `${counts[s]} ${s}`)
          .join(', ')}`;
  return {
    findings,
    verdict: { text, findings: findings.length, ...counts, nothing_to_gain: input.diagnosis.reasons.length - fromReasons.length },
  };
}
