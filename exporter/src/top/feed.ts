// Where the tables of `jobio top` come from: one snapshot of increments per refresh, with the window
// they cover. From Prometheus, increase() over a window never shorter than the scrape interval allows
// (window.ts), answered at once; from exporters, the difference between this scrape and the previous
// one, so the first table needs one whole interval of sampling.
import { ExporterSource } from './exporter-source.js';
import { noSeriesHint, type Increment, type TopMode } from './increments.js';
import type { JobInfoMap } from './job-info.js';
import { hasSeries, queryIncrements, queryJobInfo, type PrometheusQueryOptions } from './prometheus-source.js';
import { shownUrl } from './url-credentials.js';
import { resolveWindow, type TopWindow } from './window.js';

export interface TopSnapshot {
  readonly increments: readonly Increment[];
  /** The span the increments cover, in ms (for rates). */
  readonly windowMs: number;
  readonly info: JobInfoMap;
  /** When the snapshot was taken (or --time). */
  readonly at: Date;
}

export interface FeedSettings {
  readonly mode: TopMode;
  readonly prometheus?: string;
  readonly exporters: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly time?: number;
  readonly filters: Readonly<Record<string, string | undefined>>;
  readonly withJobInfo: boolean;
}

export interface TopFeed {
  /** The source as printed (passwords as ***). */
  readonly shown: string;
  /** The window and why (after start()). */
  readonly window: TopWindow;
  /** Prepares the first read; resolves to the ms of sampling the first snapshot needs (0: none). */
  start(): Promise<number>;
  read(): Promise<TopSnapshot>;
  /** Why an empty table may not mean an idle file system (the source has none of the mode's series). */
  emptyHint(): Promise<string | undefined>;
}

class PrometheusFeed implements TopFeed {
  readonly shown: string;
  window: TopWindow;

  constructor(
    private readonly url: string,
    private readonly s: FeedSettings,
  ) {
    this.shown = shownUrl(url);
    this.window = { ms: s.intervalMs };
  }

  private options(windowMs: number, filters = this.s.filters): PrometheusQueryOptions {
    return { url: this.url, mode: this.s.mode, intervalMs: windowMs, filters, time: this.s.time, timeoutMs: this.s.timeoutMs };
  }

  async start(): Promise<number> {
    this.window = await resolveWindow(this.options(this.s.intervalMs));
    return 0;
  }

  async read(): Promise<TopSnapshot> {
    const options = this.options(this.window.ms);
    const [increments, info] = await Promise.all([queryIncrements(options), this.s.withJobInfo ? queryJobInfo(this.options(this.window.ms, {})) : Promise.resolve(new Map() as JobInfoMap)]);
    return { increments, windowMs: this.window.ms, info, at: this.s.time !== undefined ? new Date(this.s.time * 1000) : new Date() };
  }

  async emptyHint(): Promise<string | undefined> {
    return (await hasSeries(this.options(this.window.ms, {}))) ? undefined : noSeriesHint(this.s.mode, `Prometheus at ${this.shown}`);
  }
}

class ExporterFeed implements TopFeed {
  readonly shown: string;
  readonly window: TopWindow;
  private readonly source: ExporterSource;
  private lastScrape = 0;

  constructor(private readonly s: FeedSettings) {
    this.shown = s.exporters.map(shownUrl).join(' ');
    this.window = { ms: s.intervalMs };
    this.source = new ExporterSource(s.exporters, s.mode, s.filters, s.timeoutMs, s.withJobInfo);
  }

  async start(): Promise<number> {
    await this.source.next(); // the starting values
    this.lastScrape = Date.now();
    return this.s.intervalMs;
  }

  async read(): Promise<TopSnapshot> {
    const increments = (await this.source.next()) ?? [];
    const now = Date.now();
    const windowMs = now - this.lastScrape;
    this.lastScrape = now;
    return { increments, windowMs, info: this.source.jobInfo, at: new Date(now) };
  }

  emptyHint(): Promise<string | undefined> {
    return Promise.resolve(this.source.hasSeries ? undefined : noSeriesHint(this.s.mode, `the --exporter scrape (${this.shown})`));
  }
}

export function createFeed(s: FeedSettings): TopFeed {
  return s.prometheus !== undefined ? new PrometheusFeed(s.prometheus, s) : new ExporterFeed(s);
}
