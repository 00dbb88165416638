// Runs one scrape: every enabled collector's update() concurrently, each with its own deadline,
// error isolation and timing, then renders all registries. One failing or hanging collector never
// fails the scrape; it reports jobio_scrape_collector_success 0 and the others are still served.
// Every part is rendered by the one exposition writer (exposition-writer.ts) into buffers of ~64 KB,
// which responses write one by one: the exposition is never one string or one buffer.
// Scrapes are single-flight: a request that arrives while a scrape runs gets that scrape's result.
import { performance } from 'node:perf_hooks';
import type { Collector, UpdateOutcome } from './collector.js';
import type { Logger } from '../util/logger.js';
import { SelfMetrics, type CollectorResult } from './self-metrics.js';
import { countSeries } from './series-count.js';
import { EXPOSITION_END, renderPartChunks, type ExpositionFormat } from './exposition-writer.js';
import type { MetricRegistry } from './metric-registry.js';
import { ChunkPool } from './chunk-pool.js';

export interface EnabledCollector {
  readonly name: string;
  readonly collector: Collector;
  readonly registry: MetricRegistry;
}

class TimeoutError extends Error {}

/** One format's rendering of a scrape: the exporter's own part (no collector), then each served collector's. */
interface Rendered {
  readonly format: ExpositionFormat;
  readonly parts: readonly { readonly collector?: string; readonly chunks: readonly Buffer[] }[];
  all?: readonly Buffer[];
}

/**
 * A scrape in flight. The formats asked for before its families are rendered are all rendered from
 * the same state; a request for another format after that waits for the next scrape.
 */
interface Flight {
  readonly formats: Set<ExpositionFormat>;
  rendering: boolean;
  done: Promise<ReadonlyMap<ExpositionFormat, Rendered>>;
  /** Requests given this scrape's buffers and not done with them yet (Lease.release). */
  leases: number;
  /** Given out without a lease (scrapeChunks): the buffers may be kept anywhere, their memory is never taken back. */
  pinned: boolean;
  /** Set once rendered: the buffers of every format. */
  rendered?: ReadonlyMap<ExpositionFormat, Rendered>;
}

/** A scrape's exposition handed to a request that says when it is done with its buffers. */
export interface LeasedExposition {
  readonly chunks: readonly Buffer[];
  /** Nothing will read the buffers any more (no write pending, no gzip run over them): call once. */
  readonly release: () => void;
}

const END_CHUNKS: Readonly<Record<ExpositionFormat, readonly Buffer[]>> = {
  text: [],
  openmetrics: [Buffer.from(EXPOSITION_END.openmetrics, 'utf8')],
};

const joinParts = (rendered: Rendered, parts: Rendered['parts']): readonly Buffer[] => [...parts.flatMap((p) => p.chunks), ...END_CHUNKS[rendered.format]];

/** The outcome of a collector's last update, by collector name (the startup log reads it). */
export interface LastOutcome {
  readonly outcome: UpdateOutcome | 'failed';
  readonly error?: string;
}

export class Scraper {
  readonly self = new SelfMetrics();
  readonly lastOutcomes = new Map<string, LastOutcome>();
  private scraped!: () => void;
  /** Resolves when the first scrape has run every collector (the per-collector log lines wait for it). */
  readonly firstScrape = new Promise<void>((resolve) => (this.scraped = resolve));
  private inFlight: Flight | undefined;
  /** Updates still running from an earlier scrape (a hung source): never started twice at once. */
  private readonly pending = new Map<string, Promise<unknown>>();
  /** The memory of the chunks of scrapes no request reads any more, for the next scrape's chunks. */
  private readonly pool = new ChunkPool();

  constructor(
    private readonly collectors: readonly EnabledCollector[],
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /** Collector names a request may select with `collect[]`. */
  get collectorNames(): readonly string[] {
    return this.collectors.map((c) => c.name);
  }

  /**
   * The exposition text of a fresh scrape in `format` (shared with any scrape already in flight).
   * With `only` (node_exporter's `collect[]`), the exposition holds the exporter's own metrics and
   * those collectors alone.
   */
  async scrape(only?: ReadonlySet<string>, format: ExpositionFormat = 'text'): Promise<string> {
    const leased = await this.scrapeLeased(only, format);
    const text = Buffer.concat(leased.chunks).toString('utf8');
    leased.release();
    return text;
  }

  /**
   * The same exposition as its buffers, in order: every request of a scrape gets the same array. They
   * may be kept as long as wanted (their memory is never used again): a request that writes them and is
   * then done with them asks for scrapeLeased() instead.
   */
  async scrapeChunks(only?: ReadonlySet<string>, format: ExpositionFormat = 'text'): Promise<readonly Buffer[]> {
    const leased = await this.scrapeLeased(only, format, true);
    return leased.chunks;
  }

  /**
   * The exposition's buffers for a request that calls release() once nothing reads them any more: when
   * every request of a scrape has, their memory is used again for a later scrape's buffers.
   */
  async scrapeLeased(only?: ReadonlySet<string>, format: ExpositionFormat = 'text', pin = false): Promise<LeasedExposition> {
    const flight = this.inFlight;
    if (flight?.rendering && !flight.formats.has(format)) {
      await flight.done.catch(() => undefined);
      return this.scrapeLeased(only, format, pin);
    }
    const joined = flight ?? this.startFlight();
    joined.formats.add(format);
    if (pin) joined.pinned = true;
    joined.leases += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      joined.leases -= 1;
      this.recycle(joined);
    };
    try {
      const rendered = (await joined.done).get(format);
      if (!rendered) throw new Error(`internal: the scrape did not render ${format}`);
      // The exposition's buffers are listed once per scrape: every request shares them (and so its encoded body).
      const chunks = only
        ? joinParts(
            rendered,
            rendered.parts.filter((p) => p.collector === undefined || only.has(p.collector)),
          )
        : (rendered.all ??= joinParts(rendered, rendered.parts));
      return { chunks, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** A scrape's chunks' memory back to the pool once it is rendered, no request reads it and none kept it. */
  private recycle(flight: Flight): void {
    if (flight.leases > 0 || flight.pinned || !flight.rendered) return;
    const rendered = flight.rendered;
    flight.rendered = undefined;
    const chunks: Buffer[] = [];
    for (const r of rendered.values()) for (const part of r.parts) chunks.push(...part.chunks);
    this.pool.giveBack(chunks);
  }

  private startFlight(): Flight {
    const flight: Flight = { formats: new Set(), rendering: false, done: Promise.resolve(new Map()), leases: 0, pinned: false };
    flight.done = this.runScrape(flight).finally(() => {
      if (this.inFlight === flight) this.inFlight = undefined;
    });
    this.inFlight = flight;
    return flight;
  }

  private async runScrape(flight: Flight): Promise<ReadonlyMap<ExpositionFormat, Rendered>> {
    const results = await Promise.all(this.collectors.map((c) => this.runOne(c)));
    this.self.record(results);
    this.scraped();
    flight.rendering = true;
    // A failed collector's registry may hold a half-refilled or stale snapshot: like node_exporter,
    // serve nothing from it this scrape rather than numbers nobody can trust.
    const served = this.collectors.filter((_, i) => results[i]?.success === true || results[i]?.absent === true);
    const out = new Map<ExpositionFormat, Rendered>();
    for (const format of flight.formats) {
      const parts: { collector?: string; chunks: readonly Buffer[] }[] = [{ chunks: await renderPartChunks(this.self.registry.list(), format, this.pool) }];
      for (const c of served) parts.push({ collector: c.name, chunks: await renderPartChunks(c.registry.list(), format, this.pool) });
      out.set(format, { format, parts });
    }
    flight.rendered = out;
    return out;
  }

  private async runOne(entry: EnabledCollector): Promise<CollectorResult & { absent: boolean }> {
    const started = performance.now();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let success = false;
    let absent = false;
    try {
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          controller.abort();
          reject(new TimeoutError(`timed out after ${this.timeoutMs} ms`));
        }, this.timeoutMs);
      });
      let update = this.pending.get(entry.name) as Promise<UpdateOutcome> | undefined;
      if (!update) {
        update = entry.collector.update(controller.signal);
        this.pending.set(entry.name, update);
        void update.catch(() => undefined).finally(() => this.pending.delete(entry.name));
      }
      const outcome = await Promise.race([update, deadline]);
      success = outcome === 'ok';
      absent = outcome === 'absent';
      if (absent) this.logger.debug({ collector: entry.name }, 'collector source not present on this host');
      this.lastOutcomes.set(entry.name, { outcome });
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      this.logger.error({ collector: entry.name, err: error }, 'collector failed');
      this.lastOutcomes.set(entry.name, { outcome: 'failed', error });
    } finally {
      clearTimeout(timer);
    }
    const durationSeconds = (performance.now() - started) / 1000;
    const series = success || absent ? await countSeries(entry.registry) : 0;
    return { collector: entry.name, success, absent, durationSeconds, series };
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.collectors.map((c) => c.collector.close?.() ?? Promise.resolve()));
  }
}
