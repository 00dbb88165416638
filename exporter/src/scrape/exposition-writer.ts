// The one exposition writer: renders metric families (metric-family.ts) in the Prometheus text format
// 0.0.4 or in OpenMetrics 1.0, handing the text out in chunks as it goes, so an exposition of
// hundreds of thousands of series is never one string.
//
// The layout is prom-client's, byte for byte (the goldens were written by it): within a part (one
// collector's families) a blank line separates families and the part ends with a newline; numbers are
// written as JavaScript prints them (`Nan`, `+Inf`, `-Inf` for the non-finite ones); HELP escapes
// backslash and newline, label values also the double quote. OpenMetrics: a counter's family is named
// without `_total` and its samples with it, no blank lines, `# EOF` at the end.
import { renderLabels, type Labels, type MetricFamily, type SampleSink } from './metric-family.js';

export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** What closes a whole exposition: OpenMetrics' `# EOF` (once, after every part); nothing in the text format. */
export const EXPOSITION_END: Readonly<Record<ExpositionFormat, string>> = { text: '', openmetrics: '# EOF\n' };

/** Characters gathered before a chunk is handed out: big enough for few calls, small enough to die young. */
const CHUNK_CHARS = 1 << 16;

/** A sample value as the text formats (and prom-client) write it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'Nan';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return `${v}`;
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export class ExpositionWriter implements SampleSink {
  /**
   * The text gathered for the next chunk, as its pieces: joined once when the chunk is handed out. A
   * string grown by `+=` is a tree of pieces (V8 ropes) that lives as long as the chunk, is copied by
   * every young-generation collection meanwhile and is walked again to be flattened: with 34,000 short
   * lines that was half of an idle scrape's render and a good share of its garbage collection.
   */
  private pieces: string[] = [];
  private chars = 0;
  /** Name of the samples of the family being written (`_total` added for an OpenMetrics counter). */
  private sampleName = '';
  private series = 0;

  constructor(
    private readonly format: ExpositionFormat,
    private readonly out: (chunk: string) => void,
  ) {}

  /** Series written so far (a sample line is one series). */
  get seriesWritten(): number {
    return this.series;
  }

  /** Writes one part: its families in order, as one prom-client registry would. */
  async part(families: readonly MetricFamily[]): Promise<void> {
    for (const [i, family] of families.entries()) {
      if (i > 0 && this.format === 'text') this.write('\n');
      await this.family(family);
    }
    // prom-client writes an empty registry as one newline.
    if (families.length === 0 && this.format === 'text') this.write('\n');
  }

  private async family(family: MetricFamily): Promise<void> {
    const openMetrics = this.format === 'openmetrics';
    const counter = family.type === 'counter';
    const name = openMetrics && counter ? family.name.replace(/_total$/, '') : family.name;
    this.sampleName = openMetrics && counter ? `${name}_total` : name;
    const type = openMetrics && family.type === 'untyped' ? 'unknown' : family.type;
    this.write(`# HELP ${escapeHelp(name)} ${escapeHelp(family.help)}\n# TYPE ${name} ${type}\n`);
    await family.collect(this);
  }

  sample(labels: Labels, value: number, suffix = '', timestampMs?: number): void {
    this.rendered(renderLabels(labels), value, suffix, timestampMs);
  }

  rendered(labelText: string, value: number, suffix = '', timestampMs?: number): void {
    this.series += 1;
    let line = labelText === '' ? `${this.sampleName}${suffix} ${formatValue(value)}` : `${this.sampleName}${suffix}{${labelText}} ${formatValue(value)}`;
    if (timestampMs !== undefined) line += ` ${this.format === 'openmetrics' ? `${timestampMs / 1000}` : `${Math.round(timestampMs)}`}`;
    this.write(`${line}\n`);
  }

  /** Ends the exposition (OpenMetrics' `# EOF`) and hands out what is left. */
  end(): void {
    this.write(EXPOSITION_END[this.format]);
    this.flush();
  }

  private write(text: string): void {
    this.pieces.push(text);
    this.chars += text.length;
    if (this.chars >= CHUNK_CHARS) this.flush();
  }

  /** Hands out what is gathered without ending the exposition (a part rendered on its own). */
  flush(): void {
    if (this.chars === 0) return;
    const chunk = this.pieces.join('');
    this.pieces = [];
    this.chars = 0;
    this.out(chunk);
  }
}

/** Renders parts to one string (tests, and readers that want the whole text). */
export async function renderToString(parts: readonly (readonly MetricFamily[])[], format: ExpositionFormat = 'text'): Promise<string> {
  const chunks: string[] = [];
  const writer = new ExpositionWriter(format, (c) => chunks.push(c));
  for (const part of parts) await writer.part(part);
  writer.end();
  return chunks.join('');
}

/**
 * Renders one part to UTF-8 buffers of about 64 KB, without the exposition's end: a scrape keeps its
 * exposition as these, never as one string or one buffer, and a response writes them one by one.
 */
export async function renderPartChunks(families: readonly MetricFamily[], format: ExpositionFormat): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  const writer = new ExpositionWriter(format, (c) => chunks.push(Buffer.from(c, 'utf8')));
  await writer.part(families);
  writer.flush();
  return chunks;
}
