// The metrics of the lustre_jobstats collector (names fixed in docs/metrics.md), written by the one
// Lustre refill (lustre/refill.ts) from a settled accumulator. The per-job counters are rendered from
// the targets' samples when Prometheus scrapes (lustre_jobstats_series.ts); the per-target gauges and
// counters are ordinary prom-client metrics.
import type { Counter, Gauge } from 'prom-client';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { JobStatsAccumulator, TargetView } from '../lustre/jobstats-accumulator.js';
import { JOB_ID_QUALITIES } from '../lustre/jobid-format.js';
import { UID_CLASSES } from '../lustre/entry-tracker.js';
import type { SampledTarget, LustreWriter } from '../lustre/refill.js';
import type { SeriesLabels } from '../lustre/series-book.js';
import { JobSeriesCounter } from './lustre_jobstats_series.js';
import { LustreJobStatsDensityMetrics } from './lustre_jobstats_density.js';
import { ShownWhilePresent, SourceMetrics } from './lustre_targets_metrics.js';
import { metricsIn } from '../scrape/metric-factory.js';
import { CUT_REASONS, JOBSTATS_READ_ERROR_REASONS, PARSE_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreJobStatsMetrics implements LustreWriter<JobStatsAccumulator> {
  private readonly readBytes: JobSeriesCounter;
  private readonly writeBytes: JobSeriesCounter;
  private readonly operations: JobSeriesCounter;
  private readonly operationSeconds: JobSeriesCounter;
  private readonly entries: Gauge<'target' | 'quality' | 'uid_class'>;
  private readonly exportedJobs: Gauge<'target'>;
  private readonly foldedJobs: Gauge<'target'>;
  private readonly expiredJobs: Counter<'target'>;
  private readonly parseErrors: Counter<'target' | 'reason'>;
  private readonly readErrors: Counter<'target' | 'reason'>;
  private readonly truncatedReads: Counter<'target' | 'reason'>;
  private readonly droppedEntries: Counter<'target'>;
  private readonly maxJobs: Gauge<'target'>;
  private readonly source: SourceMetrics;
  private readonly unattributed: ShownWhilePresent;
  private readonly density: LustreJobStatsDensityMetrics;
  /** The targets the per-job counters render, filled by target() after clear() shows a new list. */
  private shown: SampledTarget<SeriesLabels>[] = [];

  constructor(
    registry: MetricRegistry,
    private readonly maxJobsValue: number,
    maxTargets = Number.POSITIVE_INFINITY,
  ) {
    const { counter, gauge } = metricsIn(registry);
    const jobCounter = (...args: ConstructorParameters<typeof JobSeriesCounter>): JobSeriesCounter => new JobSeriesCounter(...args).register(registry);
    this.readBytes = jobCounter('jobio_lustre_jobstats_read_bytes_total', 'Bytes read by the job from the target (sum of job_stats read_bytes), in bytes.', 'read_bytes', false);
    this.writeBytes = jobCounter('jobio_lustre_jobstats_write_bytes_total', 'Bytes written by the job to the target (sum of job_stats write_bytes), in bytes.', 'write_bytes', false);
    this.operations = jobCounter('jobio_lustre_jobstats_operations_total', 'Requests of the job on the target per Lustre operation (job_stats samples).', 'operations', true);
    // Lustre prints microseconds; the division is the one unavoidable rounding.
    this.operationSeconds = jobCounter(
      'jobio_lustre_jobstats_operation_seconds_total',
      "Service time of the job's requests on the target per operation (job_stats latency sum), in seconds.",
      'operation_seconds',
      true,
      1e6,
    );
    this.entries = gauge(
      'jobio_lustre_jobstats_entries',
      'job_stats entries in the last read of the target, by identifier quality (correct, missing_jobid, malformed) and uid class (system: uid up to --collector.lustre_jobstats.system-uid-max, non_system, none: no uid in the id).',
      ['target', 'quality', 'uid_class'],
    );
    this.exportedJobs = gauge('jobio_lustre_jobstats_exported_jobs', 'Jobs of the target that have their own series (at most max-jobs).', ['target'] as const);
    this.foldedJobs = gauge('jobio_lustre_jobstats_folded_jobs', 'Jobs whose increments went to jobid="_other" at the last close of a density window, for want of a free slot.', ['target'] as const);
    this.expiredJobs = counter('jobio_lustre_jobstats_expired_jobs_total', 'Job series removed after the expiry without any increment.', ['target'] as const);
    this.parseErrors = counter(
      'jobio_lustre_jobstats_parse_errors_total',
      'job_stats text skipped, by reason: malformed_line (a line of no known shape), value_out_of_range (an entry with a samples or sum beyond u64, rejected whole), too_many_fields (counters beyond the table of operation names).',
      ['target', 'reason'],
    );
    this.readErrors = counter(
      'jobio_lustre_jobstats_read_errors_total',
      "Failed reads of the target's job_stats file, by reason: not_regular_file (a FIFO, device or directory: refused without blocking) or unreadable (its series are kept as they were).",
      ['target', 'reason'],
    );
    this.truncatedReads = counter(
      'jobio_lustre_jobstats_truncated_reads_total',
      "Reads of the target's job_stats stopped before the end of the file (the entries beyond were not read; they keep their values), by reason: max_file_bytes (--collector.lustre_jobstats.max-file-bytes) or timeout (--collector.lustre_jobstats.target-timeout, or read-timeout before the target was reached).",
      ['target', 'reason'],
    );
    this.droppedEntries = counter(
      'jobio_lustre_jobstats_dropped_entries_total',
      'New job_stats entries not taken because the target already had --collector.lustre_jobstats.max-entries, or all targets together max-total-entries (no increments counted for them).',
      ['target'] as const,
    );
    this.source = new SourceMetrics(registry, 'jobio_lustre_jobstats', 'lustre_jobstats', maxTargets);
    this.maxJobs = gauge('jobio_lustre_jobstats_max_jobs', 'The cap on jobs with their own series per target (--collector.lustre_jobstats.max-jobs).', ['target'] as const);
    this.unattributed = ShownWhilePresent.counter(
      registry,
      'jobio_lustre_jobstats_unattributed_lines_total',
      'Entries and lines of an lctl get_param dump before any <kind>.<target>.job_stats= header: no target to charge them to, so skipped.',
    );
    this.density = new LustreJobStatsDensityMetrics(registry);
  }

  private all(): { reset(): void }[] {
    return [
      this.readBytes,
      this.writeBytes,
      this.operations,
      this.operationSeconds,
      this.entries,
      this.exportedJobs,
      this.foldedJobs,
      this.expiredJobs,
      this.parseErrors,
      this.readErrors,
      this.truncatedReads,
      this.droppedEntries,
      this.maxJobs,
    ];
  }

  clear(): void {
    for (const metric of this.all()) metric.reset();
    this.source.clear();
    this.unattributed.clear();
    this.density.clear();
    this.shown = [];
  }

  whole(acc: JobStatsAccumulator): void {
    this.source.set(acc);
    this.unattributed.show(acc.unattributedLines);
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.operationSeconds]) m.show(this.shown);
  }

  target(t: TargetView): void {
    const target = t.name;
    this.shown.push(t);
    // A malformed id has no uid: its system and non_system series would always be 0, so they are not made.
    if (t.read)
      for (const quality of JOB_ID_QUALITIES)
        for (const uid_class of UID_CLASSES) if (quality !== 'malformed' || uid_class === 'none') this.entries.set({ target, quality, uid_class }, t.byUid[uid_class][quality]);
    this.maxJobs.set({ target }, this.maxJobsValue);
    this.exportedJobs.set({ target }, t.exportedJobs);
    this.foldedJobs.set({ target }, t.foldedJobs);
    this.expiredJobs.inc({ target }, t.expiredJobsTotal);
    for (const reason of PARSE_ERROR_REASONS) this.parseErrors.inc({ target, reason }, t.parseErrors[reason]);
    for (const reason of JOBSTATS_READ_ERROR_REASONS) this.readErrors.inc({ target, reason }, t.readErrors[reason]);
    for (const reason of CUT_REASONS) this.truncatedReads.inc({ target, reason }, t.truncatedReads[reason]);
    this.droppedEntries.inc({ target }, t.droppedEntriesTotal);
    this.density.fill(t);
  }
}
