// Increments from a Prometheus server: one instant query per measure,
//   sum by (<group labels>) (increase(<family>{<filters>}[<interval>]))
// evaluated now or at `--time`. Label values from the command line go through promString().
import { FAMILIES, GROUP_LABELS, NOT_REQUESTS, type Increment, type Measure, type TopMode } from './increments.js';
import { promDuration, promString, selector } from './promql.js';
import { JOB_INFO_QUERY, jobInfoMap, type JobInfoMap } from './job-info.js';
import { endpoint, shownUrl } from './url-credentials.js';

export class TopSourceError extends Error {}

export interface PrometheusQueryOptions {
  readonly url: string;
  readonly mode: TopMode;
  readonly intervalMs: number;
  readonly filters: Readonly<Record<string, string | undefined>>;
  /** Evaluation time in seconds since the epoch (undefined: now). */
  readonly time?: number;
  readonly timeoutMs: number;
}

export function buildQuery(mode: TopMode, measure: Measure, intervalMs: number, filters: Readonly<Record<string, string | undefined>>): string {
  let series = `${FAMILIES[mode][measure]}${selector(filters)}`;
  const excluded = measure === 'reqs' ? NOT_REQUESTS[mode] : [];
  if (excluded.length > 0) {
    const notRequests = excluded.map((op) => `operation!=${promString(op)}`).join(',');
    series = series.endsWith('}') ? `${series.slice(0, -1)},${notRequests}}` : `${series}{${notRequests}}`;
  }
  return `sum by (${GROUP_LABELS[mode].join(', ')}) (increase(${series}[${promDuration(intervalMs)}]))`;
}

type QueryResult = { resultType: string; result: unknown[] };

export async function instantQuery(options: PrometheusQueryOptions, query: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
  return (await apiQuery(options, query, 'vector')) as Array<{ metric: Record<string, string>; value: [number, string] }>;
}

/** A range selector's raw samples (`x[10m]` evaluated at one instant): one entry per series. */
export async function samplesQuery(options: PrometheusQueryOptions, query: string): Promise<Array<{ metric: Record<string, string>; values: Array<[number, string]> }>> {
  return (await apiQuery(options, query, 'matrix')) as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
}

/** A range query (`/api/v1/query_range`): the value of `query` at start, start + step, … ≤ end (seconds). */
export async function rangeQuery(
  options: PrometheusQueryOptions,
  query: string,
  range: { start: number; end: number; step: number },
): Promise<Array<{ metric: Record<string, string>; values: Array<[number, string]> }>> {
  const params = { start: String(range.start), end: String(range.end), step: String(range.step) };
  return (await apiQuery(options, query, 'matrix', 'query_range', params)) as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
}

async function apiQuery(options: PrometheusQueryOptions, query: string, resultType: 'vector' | 'matrix', path = 'query', extra: Record<string, string> = {}): Promise<unknown[]> {
  const params = new URLSearchParams({ query, ...extra });
  if (options.time !== undefined && path === 'query') params.set('time', String(options.time));
  const { url: base, headers } = endpoint(options.url);
  const url = `${base.replace(/\/+$/, '')}/api/v1/${path}`;
  const shown = shownUrl(options.url);
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', body: params, headers, signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new TopSourceError(`cannot reach Prometheus at ${shown}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  let body: { status?: string; error?: string; data?: Partial<QueryResult> };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new TopSourceError(`Prometheus at ${shown} answered HTTP ${res.status} without a JSON body (is it a Prometheus server?)`);
  }
  if (body.status !== 'success') throw new TopSourceError(`Prometheus rejected the query ${query}: ${body.error ?? `HTTP ${res.status}`}`);
  if (body.data?.resultType !== resultType || !Array.isArray(body.data.result)) throw new TopSourceError(`unexpected answer from Prometheus for ${query}`);
  return body.data.result;
}

export async function queryIncrements(options: PrometheusQueryOptions): Promise<Increment[]> {
  const measures: Measure[] = ['write', 'read', 'reqs'];
  const results = await Promise.all(measures.map(async (measure) => ({ measure, result: await instantQuery(options, buildQuery(options.mode, measure, options.intervalMs, options.filters)) })));
  const out: Increment[] = [];
  for (const { measure, result } of results) {
    for (const r of result) {
      const value = Number(r.value[1]);
      if (Number.isFinite(value)) out.push({ measure, labels: r.metric, value });
    }
  }
  return out;
}

/** Account and work dir of every job Prometheus has jobio_job_info for (at `time`, else now). */
export async function queryJobInfo(options: PrometheusQueryOptions): Promise<JobInfoMap> {
  return jobInfoMap((await instantQuery(options, JOB_INFO_QUERY)).map((r) => r.metric));
}

/** Whether Prometheus has any series of the mode's request counter (at `time`, else now), whatever the filters. */
export async function hasSeries(options: PrometheusQueryOptions): Promise<boolean> {
  return (await instantQuery(options, `count(${FAMILIES[options.mode].reqs})`)).length > 0;
}
