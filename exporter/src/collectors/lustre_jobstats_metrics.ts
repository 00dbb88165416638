// The metrics of the lustre_jobstats collector (names fixed in docs/metrics.md): the one Lustre refill
// (lustre/refill.ts) hands them the target views of a settled accumulator, and every family renders
// from those views when Prometheus scrapes: the per-job counters from the targets' samples
// (lustre_jobstats_series.ts), the per-target gauges and counters from the views' counts.
import type { MetricRegistry } from '../scrape/metric-registry.js';
import type { JobStatsAccumulator, TargetView } from '../lustre/jobstats-accumulator.js';
import { JOB_ID_QUALITIES } from '../lustre/jobid-format.js';
import { UID_CLASSES } from '../lustre/entry-tracker.js';
import type { LustreWriter } from '../lustre/refill.js';
import type { MetricFamily } from '../scrape/metric-family.js';
import { JobLabelTexts, JobSeriesCounter } from './lustre_jobstats_series.js';
import type { FieldKind } from '../lustre/export-fields.js';
import { LustreJobStatsDensityMetrics } from './lustre_jobstats_density.js';
import { ShownWhilePresent, SourceMetrics } from './lustre_targets_metrics.js';
import { TargetLabelTexts, targetTailsFamily } from './lustre_target_families.js';
import { CUT_REASONS, JOBSTATS_READ_ERROR_REASONS, PARSE_ERROR_REASONS } from '../lustre/error-reasons.js';

export class LustreJobStatsMetrics implements LustreWriter<JobStatsAccumulator> {
  private readonly readBytes: JobSeriesCounter;
  private readonly writeBytes: JobSeriesCounter;
  private readonly operations: JobSeriesCounter;
  private readonly operationSeconds: JobSeriesCounter;
  private readonly source: SourceMetrics;
  private readonly unattributed: ShownWhilePresent;
  private readonly density: LustreJobStatsDensityMetrics;
  /** The targets of the last refill, which every family renders: filled by target() after clear() shows a new list. */
  private shown: TargetView[] = [];
  /** The `target` label text of the targets shown, for every family. */
  private readonly targets = new TargetLabelTexts();

  constructor(registry: MetricRegistry, maxJobs: number, maxTargets = Number.POSITIVE_INFINITY) {
    const views = (): readonly TargetView[] => this.shown;
    const targets = this.targets;
    const perTarget = (name: string, help: string, type: 'counter' | 'gauge', value: (t: TargetView) => number): MetricFamily =>
      targetTailsFamily(name, help, type, views, targets, [{}], (t) => value(t));
    const perReason = <R extends string>(name: string, help: string, reasons: readonly R[], counts: (t: TargetView) => Readonly<Record<R, number>>): MetricFamily =>
      targetTailsFamily(
        name,
        help,
        'counter',
        views,
        targets,
        reasons.map((reason) => ({ reason })),
        (t, i) => counts(t)[reasons[i] as R],
      );
    // A malformed id has no uid: its system and non_system series would always be 0, so they are not made.
    const entrySeries = JOB_ID_QUALITIES.flatMap((quality) => UID_CLASSES.filter((uid_class) => quality !== 'malformed' || uid_class === 'none').map((uid_class) => ({ quality, uid_class })));
    const jobTexts = new JobLabelTexts(targets);
    const jobCounter = (name: string, help: string, kind: FieldKind, withOperation: boolean, divisor = 1): JobSeriesCounter =>
      new JobSeriesCounter(name, help, kind, withOperation, divisor, jobTexts).register(registry);
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
    for (const family of [
      targetTailsFamily(
        'jobio_lustre_jobstats_entries',
        'job_stats entries in the last read of the target, by identifier quality (correct, missing_jobid, malformed) and uid class (system: uid up to --collector.lustre_jobstats.system-uid-max, non_system, none: no uid in the id).',
        'gauge',
        views,
        targets,
        entrySeries,
        (t, i) => {
          const series = entrySeries[i];
          return t.read && series ? t.byUid[series.uid_class][series.quality] : undefined;
        },
      ),
      perTarget('jobio_lustre_jobstats_exported_jobs', 'Jobs of the target that have their own series (at most max-jobs).', 'gauge', (t) => t.exportedJobs),
      perTarget('jobio_lustre_jobstats_folded_jobs', 'Jobs whose increments went to jobid="_other" at the last close of a density window, for want of a free slot.', 'gauge', (t) => t.foldedJobs),
      perTarget('jobio_lustre_jobstats_expired_jobs_total', 'Job series removed after the expiry without any increment.', 'counter', (t) => t.expiredJobsTotal),
      perReason(
        'jobio_lustre_jobstats_parse_errors_total',
        'job_stats text skipped, by reason: malformed_line (a line of no known shape), value_out_of_range (an entry with a samples or sum beyond u64, rejected whole), too_many_fields (counters beyond the table of operation names).',
        PARSE_ERROR_REASONS,
        (t) => t.parseErrors,
      ),
      perReason(
        'jobio_lustre_jobstats_read_errors_total',
        "Failed reads of the target's job_stats file, by reason: not_regular_file (a FIFO, device or directory: refused without blocking) or unreadable (its series are kept as they were).",
        JOBSTATS_READ_ERROR_REASONS,
        (t) => t.readErrors,
      ),
      perReason(
        'jobio_lustre_jobstats_truncated_reads_total',
        "Reads of the target's job_stats stopped before the end of the file (the entries beyond were not read; they keep their values), by reason: max_file_bytes (--collector.lustre_jobstats.max-file-bytes) or timeout (--collector.lustre_jobstats.target-timeout, or read-timeout before the target was reached).",
        CUT_REASONS,
        (t) => t.truncatedReads,
      ),
      perTarget(
        'jobio_lustre_jobstats_dropped_entries_total',
        'New job_stats entries not taken because the target already had --collector.lustre_jobstats.max-entries, or all targets together max-total-entries (no increments counted for them).',
        'counter',
        (t) => t.droppedEntriesTotal,
      ),
      perTarget('jobio_lustre_jobstats_max_jobs', 'The cap on jobs with their own series per target (--collector.lustre_jobstats.max-jobs).', 'gauge', () => maxJobs),
    ])
      registry.register(family);
    this.source = new SourceMetrics(registry, 'jobio_lustre_jobstats', 'lustre_jobstats', maxTargets);
    this.unattributed = ShownWhilePresent.counter(
      registry,
      'jobio_lustre_jobstats_unattributed_lines_total',
      'Entries and lines of an lctl get_param dump before any <kind>.<target>.job_stats= header: no target to charge them to, so skipped.',
    );
    this.density = new LustreJobStatsDensityMetrics(registry, targets);
  }

  clear(): void {
    for (const metric of [this.readBytes, this.writeBytes, this.operations, this.operationSeconds]) metric.reset();
    this.source.clear();
    this.unattributed.clear();
    this.density.clear();
    this.shown = [];
  }

  whole(acc: JobStatsAccumulator): void {
    this.targets.forgetGone(acc.targetCount);
    this.source.set(acc);
    this.unattributed.show(acc.unattributedLines);
    for (const m of [this.readBytes, this.writeBytes, this.operations, this.operationSeconds]) m.show(this.shown);
  }

  target(t: TargetView): void {
    this.shown.push(t);
    this.density.fill(t);
  }
}
