import type { DataFrame } from '@grafana/data';
import { seriesToFrames } from '../prometheus/frames';
import { summaryExprs } from '../promql/build';
import { resolveFilters } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import type { RunContext } from './context';

/** Job I/O summary: calls and I/O seconds by group and class over the range (instant at its end). */
export async function runSummary(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
  const groupBy = q.groupBy ?? 'jobid';
  const filters = resolveFilters(q.filters, ctx.replace, ['jobid', 'user', 'mount']);
  const exprs = summaryExprs(groupBy, filters, (ctx.toMs - ctx.fromMs) / 1000);
  const [calls, seconds] = await Promise.all([ctx.client.queryInstant(exprs.calls, ctx.toMs), ctx.client.queryInstant(exprs.seconds, ctx.toMs)]);
  return [
    ...seriesToFrames(calls, q.refId, { jobioMetric: 'calls', groupBy }),
    ...seriesToFrames(seconds, q.refId, { jobioMetric: 'seconds', groupBy }),
  ];
}
