import type { DataFrame } from '@grafana/data';
import { seriesToFrames } from '../prometheus/frames';
import { summaryExprs } from '../promql/build';
import { resolveFilters } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import type { RunContext } from './context';

/**
 * Job I/O summary over the range (instant at its end): calls and I/O seconds by group and class, the
 * volume (and a job's user), and the red/yellow reasons when the exporter provides them.
 */
export async function runSummary(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
  const groupBy = q.groupBy ?? 'jobid';
  const filters = resolveFilters(q.filters, ctx.replace, ['jobid', 'user', 'mount']);
  const exprs = summaryExprs(groupBy, filters, (ctx.toMs - ctx.fromMs) / 1000);
  const metrics = ['calls', 'seconds', 'bytes', 'reasonCalls', 'reasonSeconds'] as const;
  const results = await Promise.all(metrics.map((m) => ctx.client.queryInstant(exprs[m], ctx.toMs)));
  return metrics.flatMap((m, i) => seriesToFrames(results[i] ?? [], q.refId, { jobioMetric: m, groupBy }));
}
