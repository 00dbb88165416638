// The per-job counters of lustre_jobstats (read/write bytes, operations, operation seconds) as
// prom-client metrics that hold no values of their own: each is rendered straight from the
// accumulator's series (SeriesBook) at collect time.
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
import type { JobStatsAccumulator } from '../lustre/jobstats-accumulator.js';
import type { FieldKind } from '../lustre/export-fields.js';
import { exportedValue, type SeriesState } from '../lustre/series-book.js';
import { u64ToNumber } from '../lustre/u64.js';

/** What one refill captured: enough to render the same numbers until the next refill. */
export interface SeriesSnapshot {
  readonly epoch: number;
  readonly fields: readonly { readonly kind: FieldKind; readonly operation: string }[];
  readonly targets: readonly { readonly name: string; readonly series: readonly SeriesState[] }[];
}

const EMPTY: SeriesSnapshot = { epoch: 0, fields: [], targets: [] };

/** prom-client's label value escaping (backslash, newline, double quote). */
function escapeLabel(value: string): string {
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

  /** The field numbers of this family in the snapshot. */
  private fieldIds(): number[] {
    const ids: number[] = [];
    const { fields } = this.snapshot;
    for (let f = 0; f < fields.length; f += 1) if (fields[f]!.kind === this.kind) ids.push(f);
    return ids;
  }

  /**
   * Calls `emit` for every exported sample, series by series (plain loops: this runs 280,000 times
   * per scrape with every job exported, and a generator's result objects were most of its garbage).
   */
  private forEachSample(emit: (target: string, s: SeriesState, field: number, value: number) => void): void {
    const { epoch, targets } = this.snapshot;
    const ids = this.fieldIds();
    if (ids.length === 0) return;
    for (const t of targets) {
      for (const s of t.series) {
        for (const f of ids) {
          const value = exportedValue(s, f, epoch);
          if (value === undefined) continue;
          const v = u64ToNumber(value);
          emit(t.name, s, f, this.divisor === 1 ? v : v / this.divisor);
        }
      }
    }
  }

  /** Number of series, without rendering them (jobio_exporter_series). */
  seriesCount(): number {
    let n = 0;
    this.forEachSample(() => (n += 1));
    return n;
  }

  /** The JSON form (getMetricsAsJSON): every sample as prom-client would list it. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    const { fields } = this.snapshot;
    this.forEachSample((target, s, f, value) => values.push({ labels: labelsOf(target, s, this.withOperation ? fields[f]!.operation : undefined), value }));
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
    const { fields } = this.snapshot;
    const operations = fields.map((field) => `,operation="${escapeLabel(field.operation)}"}`);
    const blocks: { metricName: string; value: number }[] = [];
    let lines: string[] = [];
    let lastSeries: SeriesState | undefined;
    let prefix = '';
    let pending = '';
    let pendingValue = 0;
    this.forEachSample((target, s, f, value) => {
      if (s !== lastSeries) {
        lastSeries = s;
        const { jobid, user, process } = s.labels;
        prefix = `${this.name}{target="${escapeLabel(target)}",jobid="${escapeLabel(jobid)}",user="${escapeLabel(user)}"${process === undefined ? '' : `,process="${escapeLabel(process)}"`}`;
      }
      if (pending !== '') lines.push(`${pending} ${formatValue(pendingValue)}`);
      pending = this.withOperation ? prefix + operations[f]! : `${prefix}}`;
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

function labelsOf(target: string, s: SeriesState, operation: string | undefined): Record<string, string> {
  const labels: Record<string, string> = { target, jobid: s.labels.jobid, user: s.labels.user };
  if (s.labels.process !== undefined) labels.process = s.labels.process;
  if (operation !== undefined) labels.operation = operation;
  return labels;
}

/**
 * Captures the accumulator's series as they are now (call right after finish()). The snapshot holds
 * the live series objects, not copies: their values change only in finish(), and every finish() is
 * followed in the same tick by a refill (or, when the update failed, the scraper serves nothing of
 * this collector), so what is rendered is always what the last refill saw.
 */
export function snapshotOf(acc: JobStatsAccumulator): SeriesSnapshot {
  const targets = [];
  for (const t of acc.targetViews()) targets.push({ name: t.name, series: [...t.series] });
  return { epoch: acc.scrapeEpoch, fields: [...acc.fields.fields], targets };
}
