// The per-job counters of lustre_jobstats (read/write bytes, operations, operation seconds) as
// prom-client metrics that hold no values of their own: each is rendered straight from the samples
// the accumulator hands out (lustre/series-samples.ts) at collect time.
//
// Why: with every job exported (max-jobs above the entry count) a 20,000-entry OST file makes
// 280,000 series; copying them into prom-client Counters costs one labels object, one hash string
// and one hash entry per series, and rendering then builds every line again (877 MB peak measured).
// Here a refill only records which series exist (one array of references per target); the text is
// written when Prometheus scrapes, in flat blocks of lines, and nothing per series outlives the scrape.
// The blocks rely on the registry's Prometheus text format (the only one the exporter serves): in
// OpenMetrics mode prom-client would append `_total` after the block.
//
// Same exposition as the prom-client Counters it replaces: same order (target, series, field
// number), same label order and escaping, same value formatting, 0 in the scrape that creates a field.
import type { Registry } from 'prom-client';
import type { ExportField, FieldKind } from '../lustre/export-fields.js';
import type { SampledTarget } from '../lustre/refill.js';
import type { SeriesLabels } from '../lustre/series-book.js';

/** What one refill showed: the targets and their samples, rendered until the next refill. */
export type SeriesSnapshot = readonly SampledTarget<SeriesLabels>[];

const EMPTY: SeriesSnapshot = [];

/** prom-client's label value escaping (backslash, newline, double quote). */
export function escapeLabel(value: string): string {
  return /[\\\n"]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : value;
}

/** prom-client's number formatting. */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'Nan';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return `${v}`;
}

interface Sample {
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Lines per rendered block: few blocks, each small enough for its lines to die young. */
const BLOCK_LINES = 1024;

/** One counter family over the snapshot: `kind` picks its fields, `divisor` scales (µs → s). */
export class JobSeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private snapshot: SeriesSnapshot = EMPTY;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly kind: FieldKind,
    private readonly withOperation: boolean,
    private readonly divisor = 1,
  ) {}

  register(registry: Registry): this {
    // A metric object of our own is what registerMetric() accepts besides its own classes.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
    return this;
  }

  show(snapshot: SeriesSnapshot): void {
    this.snapshot = snapshot;
  }

  reset(): void {
    this.snapshot = EMPTY;
  }

  /**
   * Visits every exported sample of this family, target by target: `visitorOf` makes the visitor of one
   * target (one closure a target, so a sample costs one call), values scaled by the divisor.
   */
  private forEachSample(visitorOf: (target: string) => (labels: SeriesLabels, field: ExportField, value: number) => void): void {
    for (const t of this.snapshot) {
      const visit = visitorOf(t.name);
      t.samples.forEach(this.divisor === 1 ? visit : (labels, field, value) => visit(labels, field, value / this.divisor), this.kind);
    }
  }

  /** Number of series, without rendering them (jobio_exporter_series). */
  seriesCount(): number {
    let n = 0;
    this.forEachSample(() => () => (n += 1));
    return n;
  }

  /** The JSON form (getMetricsAsJSON): every sample as prom-client would list it. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    this.forEachSample((target) => (labels, field, value) => values.push({ labels: labelsOf(target, labels, this.withOperation ? field.operation : undefined), value }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /**
   * The text form: prom-client's registry asks for this first, and writes each sample as
   * `${metricName}${labels} ${value}`. A sample here carries a whole block of rendered lines: the
   * block's text up to its last value goes in `metricName` (labels empty), the last value in `value`.
   * So the registry joins a few hundred flat blocks instead of holding 280,000 line strings until the
   * end of the scrape. A series' labels are written once for all its fields.
   */
  getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { metricName: string; value: number }[] }> {
    // The `,operation="…"}` ending of each field, rendered once per field and scrape.
    const operations: string[] = [];
    let lastTarget: string | undefined;
    let lastLabels: SeriesLabels | undefined;
    let prefix = '';
    let lines: string[] = [];
    const blocks: { metricName: string; value: number }[] = [];
    let pending = '';
    let pendingValue = 0;
    this.forEachSample((target) => (labels, field, value) => {
      // The prefix is a function of (target, labels): rendered again only when either changes.
      if (labels !== lastLabels || target !== lastTarget) {
        lastLabels = labels;
        lastTarget = target;
        const { jobid, user, process } = labels;
        prefix = `${this.name}{target="${escapeLabel(target)}",jobid="${escapeLabel(jobid)}",user="${escapeLabel(user)}"${process === undefined ? '' : `,process="${escapeLabel(process)}"`}`;
      }
      if (pending !== '') lines.push(`${pending} ${formatValue(pendingValue)}`);
      pending = this.withOperation ? prefix + (operations[field.id] ??= `,operation="${escapeLabel(field.operation)}"}`) : `${prefix}}`;
      pendingValue = value;
      if (lines.length >= BLOCK_LINES) {
        lines.push(pending);
        blocks.push({ metricName: lines.join('\n'), value: pendingValue });
        lines = [];
        pending = '';
      }
    });
    if (pending !== '') {
      lines.push(pending);
      blocks.push({ metricName: lines.join('\n'), value: pendingValue });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: blocks });
  }
}

function labelsOf(target: string, series: SeriesLabels, operation: string | undefined): Record<string, string> {
  const labels: Record<string, string> = { target, jobid: series.jobid, user: series.user };
  if (series.process !== undefined) labels.process = series.process;
  if (operation !== undefined) labels.operation = operation;
  return labels;
}
