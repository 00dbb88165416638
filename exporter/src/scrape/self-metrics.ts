// The exporter's metrics about itself: per-collector success, duration and series count, build info.
import { Gauge, Registry } from 'prom-client';
import { VERSION } from '../version.js';

export interface CollectorResult {
  readonly collector: string;
  readonly success: boolean;
  readonly durationSeconds: number;
  readonly series: number;
}

export class SelfMetrics {
  readonly registry = new Registry();
  private readonly success = new Gauge({
    name: 'jobio_scrape_collector_success',
    help: 'Whether the collector succeeded in the last scrape (1) or failed, timed out or found no source (0).',
    labelNames: ['collector'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Gauge({
    name: 'jobio_scrape_collector_duration_seconds',
    help: 'Seconds the collector took in the last scrape.',
    labelNames: ['collector'] as const,
    registers: [this.registry],
  });
  private readonly series = new Gauge({
    name: 'jobio_exporter_series',
    help: 'Series the collector exported in the last scrape.',
    labelNames: ['collector'] as const,
    registers: [this.registry],
  });

  constructor() {
    const buildInfo = new Gauge({
      name: 'jobio_build_info',
      help: 'A metric with a constant 1 value labelled by the jobio version and the Node.js runtime it runs on.',
      labelNames: ['version', 'nodeversion', 'platform'] as const,
      registers: [this.registry],
    });
    buildInfo.set({ version: VERSION, nodeversion: process.version, platform: `${process.platform}/${process.arch}` }, 1);
  }

  /** Replaces the per-collector figures with the outcome of one scrape. */
  record(results: readonly CollectorResult[]): void {
    this.success.reset();
    this.duration.reset();
    this.series.reset();
    for (const r of results) {
      this.success.set({ collector: r.collector }, r.success ? 1 : 0);
      this.duration.set({ collector: r.collector }, r.durationSeconds);
      this.series.set({ collector: r.collector }, r.series);
    }
  }
}
