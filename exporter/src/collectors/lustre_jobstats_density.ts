// The rate density of lustre_jobstats (docs/metrics.md): per target, operation class and decade, how
// many jobs and users had a rate in that decade over the last window ended (on the exporter's clock, the same for every scraper), every job counted
// (folded into jobid="_other" or not). Bounded: at most classes × (decades + zero) series per target
// for jobs and as many for users, whatever the number of jobs; empty buckets are not exported. Per operation
// of a fixed set (DENSITY_OPERATIONS), the jobs only: at most operations × (decades + zero) more per target.
import type { Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { TargetView } from '../lustre/jobstats-accumulator.js';
import { BUCKETS, bucketLabel, DENSITY_OPERATIONS, RATE_CLASSES } from '../lustre/rate-density.js';
import { metricsIn } from '../scrape/metric-factory.js';

type DensityLabels = 'target' | 'class' | 'decade';

export class LustreJobStatsDensityMetrics {
  private readonly jobs: Gauge<DensityLabels>;
  private readonly users: Gauge<DensityLabels>;
  private readonly operationJobs: Gauge<'target' | 'operation' | 'decade'>;
  private readonly interval: Gauge<'target'>;

  constructor(registry: MetricRegistry) {
    const { gauge } = metricsIn(registry);
    const labelNames = ['target', 'class', 'decade'] as const;
    const bucket = 'rate r over the last density window with 10^decade <= r < 10^(decade+1) (decade="zero": read but no increment); every job counted, with or without its own series';
    this.jobs = gauge(
      'jobio_lustre_jobstats_rate_jobs',
      `Jobs of the target per ${bucket}. class: operations, metadata (requests other than read/write), read_bytes, write_bytes; per second.`,
      labelNames,
    );
    this.users = gauge('jobio_lustre_jobstats_rate_users', `Users of the target (the sum of their jobs) per ${bucket}.`, labelNames);
    this.operationJobs = gauge('jobio_lustre_jobstats_operation_rate_jobs', `Jobs of the target per ${bucket}; requests per second of one operation (a fixed set: ${DENSITY_OPERATIONS.join(', ')}).`, [
      'target',
      'operation',
      'decade',
    ] as const);
    this.interval = gauge(
      'jobio_lustre_jobstats_rate_interval_seconds',
      'Length of the window the rate density of the target is over (between the reads that closed the last two windows), in seconds.',
      ['target'] as const,
    );
  }

  clear(): void {
    this.jobs.reset();
    this.users.reset();
    this.operationJobs.reset();
    this.interval.reset();
  }

  /** Sets the density of every target read this scrape (after clear()). */
  fill(t: TargetView): void {
    const d = t.density;
    if (!d) return;
    const target = t.name;
    this.interval.set({ target }, d.intervalSeconds);
    for (const [c, cls] of RATE_CLASSES.entries()) {
      for (let b = 0; b < BUCKETS; b += 1) {
        const jobs = d.jobs[c * BUCKETS + b]!;
        const users = d.users[c * BUCKETS + b]!;
        if (jobs > 0) this.jobs.set({ target, class: cls, decade: bucketLabel(b) }, jobs);
        if (users > 0) this.users.set({ target, class: cls, decade: bucketLabel(b) }, users);
      }
    }
    for (const [k, operation] of DENSITY_OPERATIONS.entries()) {
      const row = RATE_CLASSES.length + k;
      for (let b = 0; b < BUCKETS; b += 1) {
        const jobs = d.jobs[row * BUCKETS + b]!;
        if (jobs > 0) this.operationJobs.set({ target, operation, decade: bucketLabel(b) }, jobs);
      }
    }
  }
}
