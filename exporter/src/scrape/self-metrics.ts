// The exporter's metrics about itself: per-collector success, duration and series count, build info.
// Families of the one model: they hand out the outcome of the last scrape, kept as the scrape left it.
import { VERSION } from '../version.js';
import type { MetricFamily, SampleSink } from './metric-family.js';
import { MetricRegistry } from './metric-registry.js';

export interface CollectorResult {
  readonly collector: string;
  readonly success: boolean;
  readonly durationSeconds: number;
  readonly series: number;
}

/** One gauge per collector, its value read from a result of the last scrape. */
function perCollector(name: string, help: string, results: () => readonly CollectorResult[], value: (r: CollectorResult) => number): MetricFamily {
  return {
    name,
    help,
    type: 'gauge',
    collect(sink: SampleSink): void {
      for (const r of results()) sink.sample({ collector: r.collector }, value(r));
    },
  };
}

export class SelfMetrics {
  readonly registry = new MetricRegistry();
  private results: readonly CollectorResult[] = [];

  constructor() {
    const last = (): readonly CollectorResult[] => this.results;
    this.registry.register(
      perCollector('jobio_scrape_collector_success', 'Whether the collector succeeded in the last scrape (1) or failed, timed out or found no source (0).', last, (r) => (r.success ? 1 : 0)),
    );
    this.registry.register(perCollector('jobio_scrape_collector_duration_seconds', 'Seconds the collector took in the last scrape.', last, (r) => r.durationSeconds));
    this.registry.register(perCollector('jobio_exporter_series', 'Series the collector exported in the last scrape.', last, (r) => r.series));
    const build = { version: VERSION, nodeversion: process.version, platform: `${process.platform}/${process.arch}` };
    this.registry.register({
      name: 'jobio_build_info',
      help: 'A metric with a constant 1 value labelled by the jobio version and the Node.js runtime it runs on.',
      type: 'gauge',
      collect: (sink) => sink.sample(build, 1),
    });
  }

  /** Replaces the per-collector figures with the outcome of one scrape. */
  record(results: readonly CollectorResult[]): void {
    this.results = results;
  }
}
