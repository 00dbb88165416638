// The one metric model: a family (name, help, type) that hands out its samples when a scrape renders
// it, as client_golang's const metrics do. The collector's state is the only copy of the values:
// nothing per series is kept between scrapes, and a series gone from the state is gone from /metrics.
// The exposition writer (exposition-writer.ts) turns what families hand out into text.
import type { SampleRunMemo } from './sample-run.js';

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** Label names and values in exposition order; a number is written as JavaScript prints it (`le`). */
export type Labels = Readonly<Record<string, string | number>>;

/** Where a family hands its samples, in the order they are to be written. */
export interface SampleSink {
  /**
   * One sample: `suffix` is appended to the family name (`_bucket`, `_count` of a histogram);
   * `timestampMs`, when given, is written after the value (milliseconds since the epoch).
   */
  sample(labels: Labels, value: number, suffix?: string, timestampMs?: number): void;
  /**
   * The same with labels already rendered by `renderLabels()` (no braces): a family with many samples
   * per series renders a series' labels once for all of them.
   */
  rendered(labelText: string, value: number, suffix?: string, timestampMs?: number): void;
  /**
   * The same with the label text as its UTF-8 bytes, in two pieces written one after the other (a
   * series' own labels, then labels its family shares, e.g. `target="…"` then `,class="…"`): a family
   * of hundreds of thousands of samples a scrape writes them without making a string per sample.
   */
  renderedBytes(first: Uint8Array, rest: Uint8Array, value: number, timestampMs?: number): void;
  /**
   * A run of such samples: `first`, then tails[i], with the value values[from + i], all with the same
   * timestamp. `memo` is the family's own for this run (one per target): the writer keeps the run's bytes
   * there and copies them again, timestamps rewritten, while `first`, `tails` (the same objects, never
   * changed) and the values stay the same.
   */
  renderedRun(first: Uint8Array, tails: readonly Uint8Array[], values: ArrayLike<number>, from: number, timestampMs: number | undefined, memo: SampleRunMemo): void;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  /** Hands out every sample of the family as the collector's state is now. */
  collect(sink: SampleSink): void | Promise<void>;
}

/** Label value escaping of the text formats: backslash, newline, double quote. */
export function escapeLabelValue(value: string | number): string {
  if (typeof value !== 'string') return `${value}`;
  return /[\\\n"]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"') : value;
}

/** `name="value",…` without braces; '' for no labels. */
export function renderLabels(labels: Labels): string {
  let text = '';
  for (const name in labels) {
    text += `${text === '' ? '' : ','}${name}="${escapeLabelValue(labels[name] as string | number)}"`;
  }
  return text;
}
