import {
  type DataFrame,
  type DataQueryRequest,
  type DataQueryResponse,
  DataSourceApi,
  type DataSourceInstanceSettings,
  type MetricFindValue,
  type ScopedVars,
  type TestDataSourceResponse,
} from '@grafana/data';
import { getTemplateSrv } from '@grafana/runtime';
import { PromClient } from './prometheus/client';
import { variableMatch } from './promql/build';
import { parseDuration } from './promql/durations';
import { type ReplaceFn, resolveFilters } from './promql/interpolate';
import { runCharacterisation } from './runners/characterisation';
import { runPopulation } from './runners/population';
import type { RunContext } from './runners/context';
import { runRaw } from './runners/raw';
import { runSummary } from './runners/summary';
import { runTopTalkers } from './runners/top-talkers';
import { runTrend } from './runners/trend';
import { DEFAULT_QUERY, type JobioOptions, type JobioQuery, type JobioVariableQuery } from './types';
import { parseVariableQuery } from './variables';

const DEFAULT_THRESHOLD = 1048576;

export class JobioDataSource extends DataSourceApi<JobioQuery, JobioOptions> {
  readonly client: PromClient;
  readonly scrapeSeconds: number;
  readonly defaultThreshold: number;

  constructor(settings: DataSourceInstanceSettings<JobioOptions>) {
    super(settings);
    this.client = new PromClient(settings.url ?? '');
    this.scrapeSeconds = parseDuration(settings.jsonData.scrapeInterval || '15s');
    this.defaultThreshold = settings.jsonData.defaultThresholdBytes ?? DEFAULT_THRESHOLD;
  }

  override getDefaultQuery(): Partial<JobioQuery> {
    return DEFAULT_QUERY;
  }

  override filterQuery(query: JobioQuery): boolean {
    return !query.hide;
  }

  private replacer(scopedVars: ScopedVars | undefined): ReplaceFn {
    const srv = getTemplateSrv();
    return (target, format) => srv.replace(target, scopedVars, format);
  }

  async query(request: DataQueryRequest<JobioQuery>): Promise<DataQueryResponse> {
    const fromMs = request.range.from.valueOf();
    const toMs = request.range.to.valueOf();
    const ctx: RunContext = {
      client: this.client,
      fromMs,
      toMs,
      stepSeconds: Math.max(this.scrapeSeconds, Math.round((request.intervalMs ?? 0) / 1000), 1),
      scrapeSeconds: this.scrapeSeconds,
      replace: this.replacer(request.scopedVars),
    };
    const results = await Promise.all(request.targets.filter((t) => !t.hide).map((q) => this.runOne(ctx, { ...DEFAULT_QUERY, ...q })));
    return { data: results.flat() };
  }

  runOne(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
    switch (q.queryType) {
      case 'summary':
        return runSummary(ctx, q);
      case 'topTalkers':
        return runTopTalkers(ctx, q);
      case 'characterisation':
        return runCharacterisation(ctx, q, this.defaultThreshold);
      case 'population':
        return runPopulation(ctx, q, this.defaultThreshold);
      case 'trend':
        return runTrend(ctx, q);
      case 'raw':
        return runRaw(ctx, q);
      default:
        return Promise.reject(new Error(`unknown query type ${JSON.stringify(q.queryType)}`));
    }
  }

  /** Variable queries: a `JobioVariableQuery` object or its text form (`jobs(user=$user)`). */
  override async metricFindQuery(
    query: JobioVariableQuery | string,
    options?: { range?: { from: { valueOf(): number }; to: { valueOf(): number } }; scopedVars?: ScopedVars },
  ): Promise<MetricFindValue[]> {
    const parsed = typeof query === 'string' ? parseVariableQuery(query) : query;
    const filters = resolveFilters(parsed.filters, this.replacer(options?.scopedVars));
    const { label, match } = variableMatch(parsed.kind, filters);
    const toMs = options?.range?.to.valueOf() ?? Date.now();
    const fromMs = options?.range?.from.valueOf() ?? toMs - 3600_000;
    const values = await this.client.labelValues(label, match, fromMs, toMs);
    return values.map((text) => ({ text, value: text }));
  }

  /** Health check: the Prometheus build info, then whether any jobio series exist. */
  override async testDatasource(): Promise<TestDataSourceResponse> {
    try {
      const info = await this.client.buildInfo();
      const series = await this.client.queryInstant('count({__name__=~"jobio_.+"})', Date.now());
      const count = series[0]?.values[0] ?? 0;
      if (count === 0) {
        return { status: 'warning', message: `Prometheus ${info.version} reachable, but it has no jobio_* series yet: is the exporter scraped?` };
      }
      return { status: 'success', message: `Prometheus ${info.version} reachable; ${count} jobio series.` };
    } catch (err) {
      return { status: 'error', message: err instanceof Error ? err.message : String(err) };
    }
  }
}
