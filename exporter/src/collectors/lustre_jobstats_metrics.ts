// The metrics of the lustre_jobstats collector (names fixed in docs/metrics.md) and how a settled
// accumulator is written into them: reset, then refill, synchronously (no collect() hook).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import { JOB_ID_QUALITIES } from '../lustre/jobid-format.js';
import { exportedValue } from '../lustre/series-book.js';
import { u64ToNumber } from '../lustre/u64.js';

const JOB_LABELS = ['target', 'jobid', 'user', 'process'] as const;
const OP_LABELS = ['target', 'jobid', 'user', 'process', 'operation'] as const;

export class LustreJobStatsMetrics {
  private readonly readBytes: Counter<(typeof JOB_LABELS)[number]>;
  private readonly writeBytes: Counter<(typeof JOB_LABELS)[number]>;
  private readonly operations: Counter<(typeof OP_LABELS)[number]>;
  private readonly operationSeconds: Counter<(typeof OP_LABELS)[number]>;
  private readonly entries: Gauge<'target' | 'quality'>;
  private readonly exportedJobs: Gauge<'target'>;
  private readonly foldedJobs: Gauge<'target'>;
  private readonly expiredJobs: Counter<'target'>;
  private readonly parseErrors: Counter<'target'>;
  private readonly readErrors: Counter<'target'>;
  private readonly maxJobs: Gauge<'target'>;

  constructor(
    registry: Registry,
    private readonly maxJobsValue: number,
  ) {
    const registers = [registry];
    this.readBytes = new Counter({ name: 'jobio_lustre_jobstats_read_bytes_total', help: 'Bytes read by the job from the target (sum of job_stats read_bytes), in bytes.', labelNames: JOB_LABELS, registers });
    this.writeBytes = new Counter({ name: 'jobio_lustre_jobstats_write_bytes_total', help: 'Bytes written by the job to the target (sum of job_stats write_bytes), in bytes.', labelNames: JOB_LABELS, registers });
    this.operations = new Counter({ name: 'jobio_lustre_jobstats_operations_total', help: 'Requests of the job on the target per Lustre operation (job_stats samples).', labelNames: OP_LABELS, registers });
    this.operationSeconds = new Counter({ name: 'jobio_lustre_jobstats_operation_seconds_total', help: 'Service time of the job\'s requests on the target per operation (job_stats latency sum), in seconds.', labelNames: OP_LABELS, registers });
    this.entries = new Gauge({ name: 'jobio_lustre_jobstats_entries', help: 'job_stats entries in the last read of the target, by identifier quality (correct, missing_jobid, malformed).', labelNames: ['target', 'quality'] as const, registers });
    this.exportedJobs = new Gauge({ name: 'jobio_lustre_jobstats_exported_jobs', help: 'Jobs of the target that have their own series (at most max-jobs).', labelNames: ['target'] as const, registers });
    this.foldedJobs = new Gauge({ name: 'jobio_lustre_jobstats_folded_jobs', help: 'Jobs whose increments went to jobid="_other" in the last scrape for want of a free slot.', labelNames: ['target'] as const, registers });
    this.expiredJobs = new Counter({ name: 'jobio_lustre_jobstats_expired_jobs_total', help: 'Job series removed after the expiry without any increment.', labelNames: ['target'] as const, registers });
    this.parseErrors = new Counter({ name: 'jobio_lustre_jobstats_parse_errors_total', help: 'job_stats lines that fit no known shape and were skipped.', labelNames: ['target'] as const, registers });
    this.readErrors = new Counter({ name: 'jobio_lustre_jobstats_read_errors_total', help: 'Failed reads of the target\'s job_stats file (its series are kept as they were).', labelNames: ['target'] as const, registers });
    this.maxJobs = new Gauge({ name: 'jobio_lustre_jobstats_max_jobs', help: 'The cap on jobs with their own series per target (--collector.lustre_jobstats.max-jobs).', labelNames: ['target'] as const, registers });
  }

  private all(): { reset(): void }[] {
    return [this.readBytes, this.writeBytes, this.operations, this.operationSeconds, this.entries, this.exportedJobs, this.foldedJobs, this.expiredJobs, this.parseErrors, this.readErrors, this.maxJobs];
  }

  clear(): void {
    for (const metric of this.all()) metric.reset();
  }

  refill(acc: JobStatsAccumulator): void {
    this.clear();
    const fields = acc.fields.fields;
    const epoch = acc.scrapeEpoch;
    for (const t of acc.targetViews()) {
      const target = t.name;
      if (t.read) for (const quality of JOB_ID_QUALITIES) this.entries.set({ target, quality }, t.quality[quality]);
      this.maxJobs.set({ target }, this.maxJobsValue);
      this.exportedJobs.set({ target }, t.exportedJobs);
      this.foldedJobs.set({ target }, t.foldedJobs);
      this.expiredJobs.inc({ target }, t.expiredJobsTotal);
      this.parseErrors.inc({ target }, t.parseErrorsTotal);
      this.readErrors.inc({ target }, t.readErrorsTotal);
      for (const s of t.series) {
        const job = s.labels.process === undefined ? { target, jobid: s.labels.jobid, user: s.labels.user } : { target, jobid: s.labels.jobid, user: s.labels.user, process: s.labels.process };
        for (let f = 0; f < fields.length; f += 1) {
          const value = exportedValue(s, f, epoch);
          if (value === undefined) continue;
          const field = fields[f];
          if (field === undefined) continue;
          const v = u64ToNumber(value);
          switch (field.kind) {
            case 'read_bytes':
              this.readBytes.inc(job, v);
              break;
            case 'write_bytes':
              this.writeBytes.inc(job, v);
              break;
            case 'operations':
              this.operations.inc({ ...job, operation: field.operation }, v);
              break;
            case 'operation_seconds':
              // Lustre prints microseconds; the division is the one unavoidable rounding.
              this.operationSeconds.inc({ ...job, operation: field.operation }, v / 1e6);
              break;
          }
        }
      }
    }
  }
}
