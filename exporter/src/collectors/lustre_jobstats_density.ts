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
import { renderLabels, type MetricFamily, type SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { TargetView } from '../lustre/jobstats-accumulator.js';
import { BUCKETS, bucketLabel, DENSITY_OPERATIONS, RATE_CLASSES, type RateDensity } from '../lustre/rate-density.js';
import { SampleRunMemo } from '../scrape/sample-run.js';
import { TargetLabelTexts } from './lustre_target_families.js';

/** A target read this scrape with a density: what the families render. */
interface ShownDensity {
  readonly name: string;
  readonly density: RateDensity;
}

/**
 * A gauge family whose samples carry their window's end as timestamp (ms), rendered from the densities
 * the last refill showed: per target, one sample per tail (`target`, then the tail's labels), its value
 * read from the density. The labels after `target` are rendered once for every target (426 series a
 * target), and both are handed to the writer as UTF-8 bytes, one run a target: while a target's counts
 * stay the same (an idle target, window after window) the writer copies the run's bytes of the last
 * scrape with the new window's end written over the old one (SampleSink.renderedRun).
 */
class DensityGauge implements MetricFamily {
  readonly type = 'gauge';
  private readonly tails: readonly Uint8Array[];
  /** Each shown target's run, kept by the writer between scrapes. */
  private readonly runs = new Map<string, SampleRunMemo>();
  private renders = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    registry: MetricRegistry,
    private readonly shown: () => readonly ShownDensity[],
    private readonly targets: TargetLabelTexts,
    tails: readonly Record<string, string>[],
    /** The values of a density's samples: tail i has values[from + i]. */
    private readonly values: (density: RateDensity) => ArrayLike<number>,
    private readonly from = 0,
  ) {
    this.tails = tails.map((labels) => {
      const text = renderLabels(labels);
      return Buffer.from(text === '' ? '' : `,${text}`, 'utf8');
    });
    registry.register(this);
  }

  collect(sink: SampleSink): void {
    const shown = this.shown();
    const runs = this.runs;
    const mark = (this.renders += 1);
    for (const { name, density } of shown) {
      let run = runs.get(name);
      if (run === undefined) runs.set(name, (run = new SampleRunMemo()));
      run.seen = mark;
      sink.renderedRun(this.targets.bytesOf(name), this.tails, this.values(density), this.from, density.endMs, run);
    }
    // A target no longer shown: its bytes go (several renders of one scrape show the same targets).
    if (runs.size > shown.length) for (const [name, run] of runs) if (run.seen !== mark) runs.delete(name);
  }
}

/** Tails by class (or operation) then decade, as the density's rows are laid out (row * BUCKETS + bucket). */
function rowTails(label: string, rows: readonly string[]): Record<string, string>[] {
  return rows.flatMap((row) => Array.from({ length: BUCKETS }, (_, b) => ({ [label]: row, decade: bucketLabel(b) })));
}

export class LustreJobStatsDensityMetrics {
  private shown: ShownDensity[] = [];

  constructor(registry: MetricRegistry, targets: TargetLabelTexts = new TargetLabelTexts()) {
    const shown = (): readonly ShownDensity[] => this.shown;
    const bucket = 'rate r over the last density window with 10^decade <= r < 10^(decade+1) (decade="zero": read but no increment); every job counted, with or without its own series';
    const classTails = rowTails('class', RATE_CLASSES);
    new DensityGauge(
      'jobio_lustre_jobstats_rate_jobs',
      `Jobs of the target per ${bucket}. class: operations, metadata (requests other than read/write), read_bytes, write_bytes; per second.`,
      registry,
      shown,
      targets,
      classTails,
      (d) => d.jobs,
    );
    new DensityGauge('jobio_lustre_jobstats_rate_users', `Users of the target (the sum of their jobs) per ${bucket}.`, registry, shown, targets, classTails, (d) => d.users);
    new DensityGauge(
      'jobio_lustre_jobstats_operation_rate_jobs',
      `Jobs of the target per ${bucket}; requests per second of one operation (a fixed set: ${DENSITY_OPERATIONS.join(', ')}).`,
      registry,
      shown,
      targets,
      rowTails('operation', DENSITY_OPERATIONS),
      // The operations' rows come after the classes' in the density.
      (d) => d.jobs,
      RATE_CLASSES.length * BUCKETS,
    );
    new DensityGauge(
      'jobio_lustre_jobstats_rate_interval_seconds',
      'Length of the window the rate density of the target is over (between the reads that closed the last two windows), in seconds.',
      registry,
      shown,
      targets,
      [{}],
      (d) => [d.intervalSeconds],
    );
  }

  clear(): void {
    this.shown = [];
  }

  /** Shows the density of a target read this scrape (after clear()), stamped with its window's end. */
  fill(t: TargetView): void {
    if (t.density) this.shown.push({ name: t.name, density: t.density });
  }
}
