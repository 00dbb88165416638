import type { DataFrame } from '@grafana/data';
import { seriesToFrames } from '../prometheus/frames';
import { interpolateExpr } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import { type RunContext, alignedStart } from './context';

/** Hand-written PromQL (variables escaped); range by default, instant when asked. */
export async function runRaw(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
  const expr = interpolateExpr(q.expr ?? '', ctx.replace).trim();
  if (!expr) {
    return [];
  }
  const series = q.instant ? await ctx.client.queryInstant(expr, ctx.toMs) : await ctx.client.queryRange(expr, alignedStart(ctx.fromMs, ctx.stepSeconds), ctx.toMs, ctx.stepSeconds);
  return seriesToFrames(series, q.refId);
}
