// The rate density of lustre_jobstats (docs/metrics.md): per target, operation class and decade, how
// many jobs and users had a rate in that decade over the last window ended (on the exporter's clock, the same for every scraper), every job counted
// (folded into jobid="_other" or not). Bounded: classes × (decades + zero) series per target for jobs
// and as many for users, whatever the number of jobs; per operation of a fixed set (DENSITY_OPERATIONS),
// the jobs only: operations × (decades + zero) more per target.
//
// Each sample carries its window's end (ms) as its timestamp, so every store holds the same sample at
// the same time whenever it scraped (docs/scaling.md "HA pairs"): later evaluations, range queries
// included, agree between replicas. A store writes no staleness marker for a timestamped sample, so
// every bucket is exported, zeros included: an emptied bucket says 0 instead of vanishing (it would
// keep its last count for the 5-minute lookback).
import type { MetricFamily, SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { TargetView } from '../lustre/jobstats-accumulator.js';
import { BUCKETS, bucketLabel, DENSITY_OPERATIONS, RATE_CLASSES } from '../lustre/rate-density.js';

interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
  readonly timestamp: number;
}

/** A gauge family whose samples carry a timestamp (ms); the collector refills it every scrape. */
class TimestampedGauge implements MetricFamily {
  readonly type = 'gauge';
  private samples: Sample[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    registry: MetricRegistry,
  ) {
    registry.register(this);
  }

  set(labels: Record<string, string>, value: number, timestamp: number): void {
    this.samples.push({ labels, value, timestamp });
  }

  reset(): void {
    this.samples = [];
  }

  /** Number of series (jobio_exporter_series). */
  seriesCount(): number {
    return this.samples.length;
  }

  collect(sink: SampleSink): void {
    for (const { labels, value, timestamp } of this.samples) sink.sample(labels, value, undefined, timestamp);
  }
}

export class LustreJobStatsDensityMetrics {
  private readonly jobs: TimestampedGauge;
  private readonly users: TimestampedGauge;
  private readonly operationJobs: TimestampedGauge;
  private readonly interval: TimestampedGauge;

  constructor(registry: MetricRegistry) {
    const bucket = 'rate r over the last density window with 10^decade <= r < 10^(decade+1) (decade="zero": read but no increment); every job counted, with or without its own series';
    this.jobs = new TimestampedGauge(
      'jobio_lustre_jobstats_rate_jobs',
      `Jobs of the target per ${bucket}. class: operations, metadata (requests other than read/write), read_bytes, write_bytes; per second.`,
      registry,
    );
    this.users = new TimestampedGauge('jobio_lustre_jobstats_rate_users', `Users of the target (the sum of their jobs) per ${bucket}.`, registry);
    this.operationJobs = new TimestampedGauge(
      'jobio_lustre_jobstats_operation_rate_jobs',
      `Jobs of the target per ${bucket}; requests per second of one operation (a fixed set: ${DENSITY_OPERATIONS.join(', ')}).`,
      registry,
    );
    this.interval = new TimestampedGauge(
      'jobio_lustre_jobstats_rate_interval_seconds',
      'Length of the window the rate density of the target is over (between the reads that closed the last two windows), in seconds.',
      registry,
    );
  }

  clear(): void {
    this.jobs.reset();
    this.users.reset();
    this.operationJobs.reset();
    this.interval.reset();
  }

  /** Sets the density of every target read this scrape (after clear()), stamped with its window's end. */
  fill(t: TargetView): void {
    const d = t.density;
    if (!d) return;
    const target = t.name;
    const at = d.endMs;
    this.interval.set({ target }, d.intervalSeconds, at);
    for (const [c, cls] of RATE_CLASSES.entries()) {
      for (let b = 0; b < BUCKETS; b += 1) {
        this.jobs.set({ target, class: cls, decade: bucketLabel(b) }, d.jobs[c * BUCKETS + b]!, at);
        this.users.set({ target, class: cls, decade: bucketLabel(b) }, d.users[c * BUCKETS + b]!, at);
      }
    }
    for (const [k, operation] of DENSITY_OPERATIONS.entries()) {
      const row = RATE_CLASSES.length + k;
      for (let b = 0; b < BUCKETS; b += 1) this.operationJobs.set({ target, operation, decade: bucketLabel(b) }, d.jobs[row * BUCKETS + b]!, at);
    }
  }
}
