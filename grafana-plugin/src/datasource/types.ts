import type { DataQuery, DataSourceJsonData } from '@grafana/schema';

export type QueryType = 'summary' | 'topTalkers' | 'characterisation' | 'population' | 'trend' | 'raw';

/** population: which frame (the I, ρ, P percentile table; jobs by volume; jobs by peak bandwidth; headline figures). */
export type PopulationView = 'percentiles' | 'volume' | 'bandwidth' | 'summary';

/** Dimensions the RYG summary can group by (labels of the profiler metrics). */
export type SummaryGroup = 'jobid' | 'user' | 'mount';
/** Dimensions top talkers can rank by (labels of the jobstats metrics). */
export type TalkerDimension = 'target' | 'operation' | 'user' | 'jobid';
/** What top talkers and trend change measure. */
export type LoadMetric = 'bytes' | 'read_bytes' | 'write_bytes' | 'operations';

/** Label filters as typed in the editor; each may hold template variables (`$user`, `${job:raw}`). */
export interface QueryFilters {
  jobid?: string;
  user?: string;
  target?: string;
  mount?: string;
  operation?: string;
}

export interface JobioQuery extends DataQuery {
  queryType?: QueryType;
  filters?: QueryFilters;
  /** summary */
  groupBy?: SummaryGroup;
  /** topTalkers */
  dimension?: TalkerDimension;
  metric?: LoadMetric;
  limit?: number;
  instant?: boolean;
  /** characterisation: threshold c in bytes per interval; interval Δt (Prometheus duration) */
  thresholdBytes?: number;
  interval?: string;
  /** population: the view; thresholds c of the percentile table (default 0, 128 KiB, 1 MiB); the share of jobs (0.8) */
  populationView?: PopulationView;
  thresholdsBytes?: number[];
  quantile?: number;
  /** trend: windows as Prometheus durations, ratio that marks a change */
  shortWindow?: string;
  longWindow?: string;
  changeRatio?: number;
  /** raw PromQL, for anything else (variables interpolated and escaped like every filter) */
  expr?: string;
}

export const DEFAULT_QUERY: Partial<JobioQuery> = {
  queryType: 'summary',
  groupBy: 'jobid',
  dimension: 'user',
  metric: 'bytes',
  limit: 10,
  thresholdBytes: 1048576,
  interval: '1m',
  shortWindow: '5m',
  longWindow: '1h',
  changeRatio: 2,
};

export interface JobioOptions extends DataSourceJsonData {
  /** Default characterisation threshold c in bytes per interval. */
  defaultThresholdBytes?: number;
  /** Scrape interval of the Prometheus behind this source (lower bound for steps and rate windows). */
  scrapeInterval?: string;
}

/** Variable query: which label's values to list, optionally narrowed by filters. */
export interface JobioVariableQuery {
  kind: 'jobs' | 'users' | 'targets' | 'mounts' | 'operations';
  filters?: QueryFilters;
}
