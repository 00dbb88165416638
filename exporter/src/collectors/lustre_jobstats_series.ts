// The per-job counters of lustre_jobstats (read/write bytes, operations, operation seconds): families
// that hold no values of their own, each handing out the samples the accumulator hands out
// (lustre/series-samples.ts) when the scrape renders it.
//
// Why: with every job exported (max-jobs above the entry count) a 20,000-entry OST file makes
// 280,000 series; copying them into metric objects costs one labels object, one hash string and one
// hash entry per series. Here a refill only records which series exist (one array of references per
// target); the lines are written when Prometheus scrapes, straight into the exposition writer's
// chunks, and nothing per series outlives the scrape.
//
// Same exposition as the prom-client Counters these replaced: same order (target, series, field
// number), same label order and escaping, same value formatting, 0 in the scrape that creates a field.
import type { ExportField, FieldKind } from '../lustre/export-fields.js';
import type { SampledTarget } from '../lustre/refill.js';
import type { SeriesLabels } from '../lustre/series-book.js';
import { escapeLabelValue, type MetricFamily, type SampleSink } from '../scrape/metric-family.js';
import type { MetricRegistry } from '../scrape/metric-registry.js';
import { TargetLabelTexts } from './lustre_target_families.js';

/** What one refill showed: the targets and their samples, rendered until the next refill. */
export type SeriesSnapshot = readonly SampledTarget<SeriesLabels>[];

const EMPTY: SeriesSnapshot = [];

/**
 * The label text of the series, shared by the four families: `target="…"` per target, and the job's
 * labels per series, rendered once while they exist (a series keeps its labels object for its life).
 */
export class JobLabelTexts {
  private readonly jobs = new WeakMap<SeriesLabels, string>();

  constructor(readonly targets: TargetLabelTexts = new TargetLabelTexts()) {}

  /** `,jobid="…",user="…"[,process="…"]`. */
  job(labels: SeriesLabels): string {
    let text = this.jobs.get(labels);
    if (text === undefined) {
      const { jobid, user, process } = labels;
      text = `,jobid="${escapeLabelValue(jobid)}",user="${escapeLabelValue(user)}"${process === undefined ? '' : `,process="${escapeLabelValue(process)}"`}`;
      this.jobs.set(labels, text);
    }
    return text;
  }
}

/** One counter family over the snapshot: `kind` picks its fields, `divisor` scales (µs → s). */
export class JobSeriesCounter implements MetricFamily {
  readonly type = 'counter';
  private snapshot: SeriesSnapshot = EMPTY;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly kind: FieldKind,
    private readonly withOperation: boolean,
    private readonly divisor = 1,
    private readonly texts = new JobLabelTexts(),
  ) {}

  register(registry: MetricRegistry): this {
    return registry.register(this);
  }

  show(snapshot: SeriesSnapshot): void {
    this.snapshot = snapshot;
  }

  reset(): void {
    this.snapshot = EMPTY;
  }

  /**
   * Hands out every exported sample, target by target. A series' labels are rendered once for all
   * its fields (the text is a function of the target and the series), an operation's once a scrape.
   */
  collect(sink: SampleSink): void {
    const operations: string[] = [];
    for (const t of this.snapshot) {
      const target = this.texts.targets.of(t.name);
      let lastLabels: SeriesLabels | undefined;
      let prefix = '';
      const visit = (labels: SeriesLabels, field: ExportField, value: number): void => {
        if (labels !== lastLabels) {
          lastLabels = labels;
          prefix = target + this.texts.job(labels);
        }
        const scaled = this.divisor === 1 ? value : value / this.divisor;
        sink.rendered(this.withOperation ? prefix + (operations[field.id] ??= `,operation="${escapeLabelValue(field.operation)}"`) : prefix, scaled);
      };
      t.samples.forEach(visit, this.kind);
    }
  }
}
