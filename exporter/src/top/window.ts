// The window `jobio top --prometheus` asks increase() for. increase() needs two samples of a series
// in its window: a 10 s window over a Prometheus that scrapes every 30 s holds at most one, and the
// table would come back empty, which reads as an idle file system. So the window is widened to
// WINDOW_SCRAPES scrape intervals when --interval is shorter (Grafana's $__rate_interval rule: one
// missed scrape still leaves two samples), and the title says so.
//   The scrape interval comes from the Prometheus targets API (the targets whose job exports the
// mode's series); where that API is missing or matches nothing (federation, a query front end),
// from the gaps between the samples of one exporter's own jobio_scrape_collector_success series.
import { parseDuration } from '../util/duration.js';
import { FAMILIES, SOURCE_COLLECTOR } from './increments.js';
import { instantQuery, samplesQuery, TopSourceError, type PrometheusQueryOptions } from './prometheus-source.js';
import { promString, selector } from './promql.js';
import { endpoint } from './url-credentials.js';
import { windowText } from './units.js';

export const WINDOW_SCRAPES = 4;
const PROBE_RANGE_S = 600;

export interface TopWindow {
  /** The increase() window in ms. */
  readonly ms: number;
  /** The scrape interval found, in ms (undefined: none found). */
  readonly scrapeMs?: number;
  /** How the window was chosen, for the title: undefined when it is --interval as given. */
  readonly note?: string;
}

export interface TargetsAnswer {
  status?: string;
  data?: { activeTargets?: Array<{ labels?: Record<string, string>; discoveredLabels?: Record<string, string>; scrapeInterval?: string; health?: string }> };
}

/**
 * The scrape interval of each active target of a targets API answer, by the target's job label (largest
 * if several). Prometheus names it scrapeInterval; VictoriaMetrics and vmagent leave that field out and
 * keep it in the discovered label __scrape_interval__ (without it every scraper answered the same table
 * but VictoriaMetrics' window was guessed from the sample count).
 */
export function intervalsByJob(body: TargetsAnswer): Map<string, number> | undefined {
  if (body.status !== 'success' || !Array.isArray(body.data?.activeTargets)) return undefined;
  const byJob = new Map<string, number>();
  for (const t of body.data.activeTargets) {
    const job = t.labels?.job;
    const interval = t.scrapeInterval ?? t.discoveredLabels?.__scrape_interval__;
    if (job === undefined || interval === undefined) continue;
    let ms: number;
    try {
      ms = parseDuration(interval);
    } catch {
      continue;
    }
    byJob.set(job, Math.max(ms, byJob.get(job) ?? 0));
  }
  return byJob;
}

/** The scrape intervals the server's targets API reports (undefined: no such API here). */
export async function targetIntervals(options: Pick<PrometheusQueryOptions, 'url' | 'timeoutMs'>): Promise<Map<string, number> | undefined> {
  const { url: base, headers } = endpoint(options.url);
  let body: TargetsAnswer;
  try {
    const res = await fetch(`${base.replace(/\/+$/, '')}/api/v1/targets?state=active`, { headers, signal: AbortSignal.timeout(options.timeoutMs) });
    if (!res.ok) return undefined;
    body = (await res.json()) as TargetsAnswer;
  } catch {
    return undefined; // no targets API here (a query front end): the fallback below answers
  }
  return intervalsByJob(body);
}

/** The longest scrape interval of the targets whose job has series of the mode (targets API first). */
export async function scrapeIntervalMs(options: PrometheusQueryOptions): Promise<number | undefined> {
  const intervals = await targetIntervals(options);
  if (intervals && intervals.size > 0) {
    const jobs = (await instantQuery(options, `count by (job) (${FAMILIES[options.mode].reqs})`)).map((r) => r.metric.job).filter((j): j is string => j !== undefined);
    const found = jobs.map((j) => intervals.get(j)).filter((ms): ms is number => ms !== undefined);
    if (found.length > 0) return Math.max(...found);
  }
  // The gaps between the samples of one exporter's own success series over the last 10 minutes. Not
  // the sample count over 10 minutes: series younger than that (a store fed by remote write since a
  // minute ago) would read as scraped rarely, and the window would be widened for nothing.
  const success = `jobio_scrape_collector_success{collector=${promString(SOURCE_COLLECTOR[options.mode])}}`;
  const one = await instantQuery(options, `topk(1, ${success})`);
  if (one[0] === undefined) return undefined;
  const series = await samplesQuery(options, `${success.slice(0, -1)},${selector(one[0].metric).slice(1)}[${PROBE_RANGE_S}s]`);
  return medianGapMs((series[0]?.values ?? []).map(([t]) => t));
}

/** The median gap between sample times in seconds, in ms (undefined: fewer than two samples). */
export function medianGapMs(times: readonly number[]): number | undefined {
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push((times[i] ?? 0) - (times[i - 1] ?? 0));
  gaps.sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)];
  return median === undefined ? undefined : Math.round(median * 1000);
}

/** The window for an --interval, given the scrape interval found. */
export function answerableWindow(intervalMs: number, scrapeMs: number | undefined): TopWindow {
  if (scrapeMs === undefined) return { ms: intervalMs };
  const least = WINDOW_SCRAPES * scrapeMs;
  if (intervalMs >= least) return { ms: intervalMs, scrapeMs };
  return { ms: least, scrapeMs, note: `widened from --interval ${windowText(intervalMs)} to ${WINDOW_SCRAPES} × the ${windowText(scrapeMs)} scrape interval` };
}

export async function resolveWindow(options: PrometheusQueryOptions): Promise<TopWindow> {
  try {
    return answerableWindow(options.intervalMs, await scrapeIntervalMs(options));
  } catch (err) {
    // An unreachable Prometheus is reported by the table's own queries, with their message.
    if (err instanceof TopSourceError) return { ms: options.intervalMs };
    throw err;
  }
}
