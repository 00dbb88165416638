// PromQL for each query type. Inputs are already-interpolated literal filters; every value is escaped
// by `renderMatcher`, every label and metric name is validated, every number is checked.
import type { LoadMetric, SummaryGroup, TalkerDimension } from '../types';
import { type LabelFilter, renderMatchers, selector } from './matchers';
import {
  JOBSTATS_OPERATIONS,
  JOBSTATS_READ_BYTES,
  JOBSTATS_WRITE_BYTES,
  PROFILER_CALLS,
  PROFILER_IO_SECONDS,
  PROFILER_READ_BYTES,
  PROFILER_REASON_CALLS,
  PROFILER_REASON_SECONDS,
  PROFILER_WRITE_BYTES,
} from './metrics';
import { formatDuration } from './durations';

const SUMMARY_GROUPS: readonly SummaryGroup[] = ['jobid', 'user', 'mount'];
const TALKER_DIMENSIONS: readonly TalkerDimension[] = ['target', 'operation', 'user', 'jobid'];

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new Error(`invalid ${what}: ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** Selector of a single-metric load (`bytes` is two metrics: see loadExpr). */
function loadMetricName(metric: Exclude<LoadMetric, 'bytes'>): string {
  switch (metric) {
    case 'read_bytes':
      return JOBSTATS_READ_BYTES;
    case 'write_bytes':
      return JOBSTATS_WRITE_BYTES;
    case 'operations':
      return JOBSTATS_OPERATIONS;
    default:
      throw new Error(`invalid metric: ${JSON.stringify(metric)}`);
  }
}

/**
 * `fn(metric[window])` for a load metric. `bytes` is read plus write: both rates are tagged with a
 * `direction` label and joined with `or`, because rate() over a name regex drops `__name__` and
 * Prometheus rejects the resulting duplicate label sets.
 */
export function loadExpr(metric: LoadMetric, filters: LabelFilter[], fn: 'rate' | 'increase', window: string): string {
  if (metric === 'bytes') {
    const tagged = (name: string, direction: string) => `label_replace(${fn}(${selector(name, filters)}[${window}]), "direction", "${direction}", "", "")`;
    return `${tagged(JOBSTATS_READ_BYTES, 'read')} or ${tagged(JOBSTATS_WRITE_BYTES, 'write')}`;
  }
  return `${fn}(${selector(loadMetricName(metric), filters)}[${window}])`;
}

export interface SummaryExprs {
  calls: string;
  seconds: string;
  /** Bytes read + written by group (and user, for jobs, as calls and seconds). */
  bytes: string;
  /** Red/yellow calls and seconds by group, class and reason (empty on exporters without them). */
  reasonCalls: string;
  reasonSeconds: string;
}

/** RYG summary: increase over the range of calls and I/O seconds by group and class, volume, reasons. */
export function summaryExprs(groupBy: SummaryGroup, filters: LabelFilter[], rangeSeconds: number): SummaryExprs {
  const g = oneOf(groupBy, SUMMARY_GROUPS, 'group');
  const range = formatDuration(rangeSeconds);
  const increase = (metric: string) => `increase(${selector(metric, filters)}[${range}])`;
  // By job, every query keeps the job's user: a job that moved no bytes (only stats, say) has no
  // volume series, and its user must still show.
  const by = g === 'jobid' ? 'jobid, user' : g;
  const expr = (metric: string) => `sum by (${by}, class) (${increase(metric)})`;
  const reasons = (metric: string) => `sum by (${g}, class, reason) (${increase(metric)})`;
  // Read and write series differ only by name: tag them apart before `or` (see loadExpr).
  const tagged = (metric: string, direction: string) => `label_replace(${increase(metric)}, "direction", "${direction}", "", "")`;
  return {
    calls: expr(PROFILER_CALLS),
    seconds: expr(PROFILER_IO_SECONDS),
    bytes: `sum by (${by}) (${tagged(PROFILER_READ_BYTES, 'read')} or ${tagged(PROFILER_WRITE_BYTES, 'write')})`,
    reasonCalls: reasons(PROFILER_REASON_CALLS),
    reasonSeconds: reasons(PROFILER_REASON_SECONDS),
  };
}

/**
 * Top talkers: `topk(N, …)` by one dimension. Instant: volume (increase) over the whole range;
 * range: per-step rate over `windowSeconds`.
 */
export function topTalkersExpr(dimension: TalkerDimension, metric: LoadMetric, limit: number, filters: LabelFilter[], opts: { instant: boolean; rangeSeconds: number; windowSeconds: number }): string {
  const d = oneOf(dimension, TALKER_DIMENSIONS, 'dimension');
  if (!Number.isInteger(limit) || limit < 1 || limit > 10000) {
    throw new Error(`invalid limit: ${limit}`);
  }
  const fn = opts.instant ? 'increase' : 'rate';
  const window = formatDuration(opts.instant ? opts.rangeSeconds : opts.windowSeconds);
  return `topk(${limit}, sum by (${d}) (${loadExpr(metric, filters, fn, window)}))`;
}

/** Per-job characterisation inputs: raw counters by job and target (deltas are taken client-side). */
export function characterisationExprs(filters: LabelFilter[]): { read: string; write: string; operations: string } {
  const expr = (metric: string) => `sum by (jobid, target) (${selector(metric, filters)})`;
  return { read: expr(JOBSTATS_READ_BYTES), write: expr(JOBSTATS_WRITE_BYTES), operations: expr(JOBSTATS_OPERATIONS) };
}

/** Trend change input: per-target rate of a load metric (moving averages are taken client-side). */
export function trendExpr(metric: LoadMetric, filters: LabelFilter[], windowSeconds: number): string {
  return `sum by (target) (${loadExpr(metric, filters, 'rate', formatDuration(windowSeconds))})`;
}

/** `match[]` selector for label-values lookups of variable queries. */
export function variableMatch(kind: 'jobs' | 'users' | 'targets' | 'mounts' | 'operations', filters: LabelFilter[]): { label: string; match: string } {
  switch (kind) {
    case 'jobs':
      return { label: 'jobid', match: `{${renderMatchers(filters, ['__name__=~"jobio_(lustre_jobstats|profiler)_.+"'])}}` };
    case 'users':
      return { label: 'user', match: `{${renderMatchers(filters, ['__name__=~"jobio_(lustre_jobstats|profiler)_.+"'])}}` };
    case 'targets':
      return { label: 'target', match: `{${renderMatchers(filters, ['__name__=~"jobio_lustre_.+"'])}}` };
    case 'mounts':
      return { label: 'mount', match: `{${renderMatchers(filters, [`__name__="${PROFILER_CALLS}"`])}}` };
    case 'operations':
      return { label: 'operation', match: `{${renderMatchers(filters, [`__name__="${JOBSTATS_OPERATIONS}"`])}}` };
    default:
      throw new Error(`invalid variable kind: ${JSON.stringify(kind)}`);
  }
}
