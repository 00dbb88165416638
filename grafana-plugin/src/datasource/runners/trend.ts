import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';
import { trendChange } from '../analysis/trend';
import { seriesName } from '../prometheus/frames';
import { trendExpr } from '../promql/build';
import { parseDuration } from '../promql/durations';
import { resolveFilters } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import { type RunContext, alignedStart, rateWindow } from './context';

/** Trend change per target: short and long moving averages of the rate, their ratio, the change flag. */
export async function runTrend(ctx: RunContext, q: JobioQuery): Promise<DataFrame[]> {
  const step = ctx.stepSeconds;
  const shortPoints = Math.max(1, Math.round(parseDuration(q.shortWindow ?? '5m') / step));
  const longSeconds = parseDuration(q.longWindow ?? '1h');
  const longPoints = Math.max(shortPoints + 1, Math.round(longSeconds / step));
  const expr = trendExpr(q.metric ?? 'bytes', resolveFilters(q.filters, ctx.replace), rateWindow(ctx));
  // Start one long window early so the long average is warm at the first visible point.
  const start = alignedStart(ctx.fromMs - longPoints * step * 1000, step);
  const series = await ctx.client.queryRange(expr, start, ctx.toMs, step);
  return series.map((s) => {
    // Put the samples on the full grid so missing steps count as gaps, not as neighbours.
    const count = Math.floor((ctx.toMs - start) / (step * 1000)) + 1;
    const values = new Array<number>(count).fill(NaN);
    s.times.forEach((t, j) => {
      const i = Math.round((t - start) / (step * 1000));
      if (i >= 0 && i < count) {
        values[i] = s.values[j] ?? NaN;
      }
    });
    const points = trendChange(values, shortPoints, longPoints, q.changeRatio ?? 2);
    const times = values.map((_, i) => start + i * step * 1000);
    const first = times.findIndex((t) => t >= ctx.fromMs);
    const keep = <T>(xs: T[]) => xs.slice(Math.max(0, first));
    const labels = { ...s.labels };
    return createDataFrame({
      refId: q.refId,
      name: seriesName(labels),
      meta: { custom: { jobioMetric: 'trend' } },
      fields: [
        { name: 'Time', type: FieldType.time, values: keep(times) },
        { name: 'short average', type: FieldType.number, values: keep(points.map((p) => p.short)), labels },
        { name: 'long average', type: FieldType.number, values: keep(points.map((p) => p.long)), labels },
        { name: 'ratio', type: FieldType.number, values: keep(points.map((p) => p.ratio)), labels },
        { name: 'change', type: FieldType.number, values: keep(points.map((p) => p.change)), labels },
      ],
    });
  });
}
