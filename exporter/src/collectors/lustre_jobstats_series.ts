// The per-job counters of lustre_jobstats (read/write bytes, operations, operation seconds) as
// prom-client metrics that hold no values of their own: each is rendered straight from the
// accumulator's series (SeriesBook) at collect time.
//
// Why: with every job exported (max-jobs above the entry count) a 20,000-entry OST file makes
// 280,000 series; copying them into prom-client Counters costs one labels object, one hash string
// and one hash entry per series, and rendering then builds every line again (877 MB peak measured).
// Here a refill only records which series exist (one array of references per target); the text is
// written line by line when Prometheus scrapes, and nothing per series outlives the scrape.
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

  /** Walks every exported sample without building them all at once. */
  private *samples<T>(emit: (target: string, s: SeriesState, operation: string | undefined, value: number) => T): Generator<T> {
    const { epoch, fields, targets } = this.snapshot;
    const ids: number[] = [];
    for (let f = 0; f < fields.length; f += 1) if (fields[f]!.kind === this.kind) ids.push(f);
    if (ids.length === 0) return;
    for (const t of targets) {
      for (const s of t.series) {
        for (const f of ids) {
          const value = exportedValue(s, f, epoch);
          if (value === undefined) continue;
          const v = u64ToNumber(value);
          yield emit(t.name, s, this.withOperation ? fields[f]!.operation : undefined, this.divisor === 1 ? v : v / this.divisor);
        }
      }
    }
  }

  /** Number of series, without rendering them (jobio_exporter_series). */
  seriesCount(): number {
    let n = 0;
    for (const _ of this.samples(() => 0)) n += 1;
    return n;
  }

  /** The JSON form (getMetricsAsJSON): every sample as prom-client would list it. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values = [...this.samples((target, s, operation, value): Sample => ({ labels: labelsOf(target, s, operation), value }))];
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /**
   * The text form: prom-client's registry asks for this first. Each sample arrives with its labels
   * already written into `metricName` and no `labels`, so the registry only appends the value.
   */
  getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Iterable<{ metricName: string; value: number }> }> {
    const name = this.name;
    const values = this.samples((target, s, operation, value) => {
      const { jobid, user, process } = s.labels;
      let line = `${name}{target="${escapeLabel(target)}",jobid="${escapeLabel(jobid)}",user="${escapeLabel(user)}"`;
      if (process !== undefined) line += `,process="${escapeLabel(process)}"`;
      if (operation !== undefined) line += `,operation="${escapeLabel(operation)}"`;
      return { metricName: `${line}}`, value };
    });
    return Promise.resolve({ name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

function labelsOf(target: string, s: SeriesState, operation: string | undefined): Record<string, string> {
  const labels: Record<string, string> = { target, jobid: s.labels.jobid, user: s.labels.user };
  if (s.labels.process !== undefined) labels.process = s.labels.process;
  if (operation !== undefined) labels.operation = operation;
  return labels;
}

/** Captures the accumulator's series as they are now (call right after finish()). */
export function snapshotOf(acc: JobStatsAccumulator): SeriesSnapshot {
  const targets = [];
  for (const t of acc.targetViews()) targets.push({ name: t.name, series: [...t.series] });
  return { epoch: acc.scrapeEpoch, fields: [...acc.fields.fields], targets };
}
