import type { PromClient } from '../prometheus/client';
import type { ReplaceFn } from '../promql/interpolate';

/** What every query-type runner gets: the client, the panel's time range and step, interpolation. */
export interface RunContext {
  client: PromClient;
  fromMs: number;
  toMs: number;
  /** Range-query step in seconds (≥ the scrape interval). */
  stepSeconds: number;
  /** Scrape interval in seconds; rate windows are at least 4× this. */
  scrapeSeconds: number;
  replace: ReplaceFn;
}

/** Range start aligned down to the step, so successive refreshes evaluate at the same instants. */
export function alignedStart(fromMs: number, stepSeconds: number): number {
  const stepMs = stepSeconds * 1000;
  return Math.floor(fromMs / stepMs) * stepMs;
}

/** A rate window that always holds several scrapes. */
export function rateWindow(ctx: RunContext): number {
  return Math.max(ctx.stepSeconds, 4 * ctx.scrapeSeconds);
}
