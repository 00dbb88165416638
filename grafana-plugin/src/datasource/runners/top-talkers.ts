import type { DataFrame } from '@grafana/data';
import { seriesToFrames, seriesToTable } from '../prometheus/frames';
import { topTalkersExpr } from '../promql/build';
import { resolveFilters } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import { type RunContext, alignedStart, rateWindow } from './context';

const VALUE_NAMES = { bytes: 'bytes', read_bytes: 'read bytes', write_bytes: 'write bytes', operations: 'operations' } as const;

/** Top talkers by target, operation, user or job: a ranked table (instant) or per-step rates (range). */
export async function runTopTalkers(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
  const dimension = q.dimension ?? 'user';
  const metric = q.metric ?? 'bytes';
  const instant = q.instant ?? true;
  const expr = topTalkersExpr(dimension, metric, q.limit ?? 10, resolveFilters(q.filters, ctx.replace), {
    instant,
    rangeSeconds: (ctx.toMs - ctx.fromMs) / 1000,
    windowSeconds: rateWindow(ctx),
  });
  if (instant) {
    const series = await ctx.client.queryInstant(expr, ctx.toMs);
    series.sort((a, b) => (b.values[0] ?? 0) - (a.values[0] ?? 0));
    return [seriesToTable(series, q.refId, [dimension], VALUE_NAMES[metric])];
  }
  const series = await ctx.client.queryRange(expr, alignedStart(ctx.fromMs, ctx.stepSeconds), ctx.toMs, ctx.stepSeconds);
  return seriesToFrames(series, q.refId);
}
