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
import { restamp, type RunBytes, type RunInput, type SampleRunMemo } from './sample-run.js';
import { POOLED_CHUNK_BYTES, type ChunkPool } from './chunk-pool.js';

export type ExpositionFormat = 'text' | 'openmetrics';

export const CONTENT_TYPES: Readonly<Record<ExpositionFormat, string>> = {
  text: 'text/plain; version=0.0.4; charset=utf-8',
  openmetrics: 'application/openmetrics-text; version=1.0.0; charset=utf-8',
};

/** What closes a whole exposition: OpenMetrics' `# EOF` (once, after every part); nothing in the text format. */
export const EXPOSITION_END: Readonly<Record<ExpositionFormat, string>> = { text: '', openmetrics: '# EOF\n' };

/** Characters of text gathered before they are encoded: big enough for few calls, small enough to die young. */
const CHUNK_CHARS = 1 << 16;
/** Bytes of a chunk that byte samples are written into. */
const CHUNK_BYTES = POOLED_CHUNK_BYTES;

const SPACE = 0x20;
const MINUS = 0x2d;
const DIGIT_ZERO = 0x30;
const CLOSE_BRACE = 0x7d;
/** Longest safe integer written by digits: a sign and 16 digits (2^53 − 1 has 16). */
const INTEGER_BYTES = 17;
/** Longest text of a number as JavaScript prints it (`-0.0000012345678901234567`: 25), with room to spare. */
const NUMBER_BYTES = 32;
const NO_BYTES = Buffer.alloc(0);
const NEWLINE_BYTES = Buffer.from('\n');

/** A sample value as the text formats (and prom-client) write it. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'Nan';
  if (!Number.isFinite(v)) return v < 0 ? '-Inf' : '+Inf';
  return `${v}`;
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/**
 * Writes the exposition in chunks of about 64 KB of UTF-8, handed out as they fill. Text is gathered as
 * strings, joined and encoded once a chunk; samples whose labels a family hands out as bytes
 * (`renderedBytes`, the rate density's 460,000 lines a scrape of 1,000 targets) are written straight
 * into the chunk's bytes instead, with no string for the line: their name, labels, value (an integer
 * digit by digit) and timestamp are copied one after the other. What is written stays in order: the
 * strings gathered always come after the chunk's bytes, and are encoded into it before more bytes.
 */
export class ExpositionWriter implements SampleSink {
  /**
   * The text gathered after the chunk's bytes, as its pieces: joined once when the chunk is handed out.
   * A string grown by `+=` is a tree of pieces (V8 ropes) that lives as long as the chunk, is copied by
   * every young-generation collection meanwhile and is walked again to be flattened: with 34,000 short
   * lines that was half of an idle scrape's render and a good share of its garbage collection.
   */
  private pieces: string[] = [];
  private chars = 0;
  /** The chunk of bytes being filled (empty until a byte sample is written) and the bytes in it. */
  private chunk: Buffer = NO_BYTES;
  private at = 0;
  /** Name of the samples of the family being written (`_total` added for an OpenMetrics counter). */
  private sampleName = '';
  /** The same followed by `{`, as UTF-8, for byte samples. */
  private sampleOpen: Uint8Array = NO_BYTES;
  /** The last timestamp written as bytes and its text (a space, the number, the newline). */
  private stampMs = NaN;
  private stampLine: Uint8Array = NO_BYTES;
  private series = 0;

  constructor(
    private readonly format: ExpositionFormat,
    private readonly out: (chunk: Buffer) => void,
    /** Where chunks' memory comes from when given (a scraper's, memory of earlier scrapes nothing reads). */
    private readonly pool?: ChunkPool,
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
    this.sampleOpen = NO_BYTES;
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
    if (timestampMs !== undefined) line += ` ${this.stampText(timestampMs)}`;
    this.write(`${line}\n`);
  }

  renderedBytes(first: Uint8Array, rest: Uint8Array, value: number, timestampMs?: number): void {
    if (first.length + rest.length === 0) return this.rendered('', value, '', timestampMs);
    this.series += 1;
    if (this.chars > 0) this.encodePieces(true);
    const open = this.openBytes();
    const stamp = this.stampBytes(timestampMs);
    this.room(open.length + first.length + rest.length + 2 + INTEGER_BYTES + stamp.length);
    const chunk = this.chunk;
    const at = writeSampleHead(chunk, this.at, open, first, rest);
    if (Number.isSafeInteger(value)) this.at = writeInteger(chunk, at, value);
    else {
      // Not an integer (the density's interval): its text, ASCII, into the chunk.
      const text = formatValue(value);
      this.at = at;
      this.room(text.length + stamp.length);
      this.at += this.chunk.write(text, this.at, 'latin1');
    }
    this.chunk.set(stamp, this.at);
    this.at += stamp.length;
  }

  renderedRun(first: Uint8Array, tails: readonly Uint8Array[], values: ArrayLike<number>, from: number, timestampMs: number | undefined, memo: SampleRunMemo): void {
    if (first.length === 0) {
      for (let i = 0; i < tails.length; i += 1) this.renderedBytes(first, tails[i] as Uint8Array, values[from + i] as number, timestampMs);
      return;
    }
    this.series += tails.length;
    if (this.chars > 0) this.encodePieces(true);
    const stamp = this.stampBytes(timestampMs);
    const input: RunInput = { open: this.openBytes(), first, tails, values, from };
    let run = memo.reusable(this.format, input, stamp.length);
    if (run) restamp(run, timestampMs, stamp);
    else memo[this.format] = run = renderRun(input, timestampMs, stamp);
    this.copy(run.bytes);
  }

  /** Ends the exposition (OpenMetrics' `# EOF`) and hands out what is left. */
  end(): void {
    this.write(EXPOSITION_END[this.format]);
    this.flush();
  }

  /** Hands out what is gathered without ending the exposition (a part rendered on its own). */
  flush(): void {
    if (this.chars > 0) this.encodePieces(false);
    this.handOut();
  }

  /** The sample name and `{` of the family being written, as UTF-8. */
  private openBytes(): Uint8Array {
    if (this.sampleOpen === NO_BYTES) this.sampleOpen = Buffer.from(`${this.sampleName}{`, 'utf8');
    return this.sampleOpen;
  }

  /** What ends a byte sample: a space, the timestamp's text and the newline, or the newline alone. */
  private stampBytes(timestampMs: number | undefined): Uint8Array {
    if (timestampMs === undefined) this.stampLine = NEWLINE_BYTES;
    else if (timestampMs !== this.stampMs || this.stampLine === NEWLINE_BYTES) {
      this.stampMs = timestampMs;
      this.stampLine = Buffer.from(` ${this.stampText(timestampMs)}\n`, 'utf8');
    }
    return this.stampLine;
  }

  /** Copies bytes into the chunks, handing out each chunk as it fills (a line may span two chunks). */
  private copy(bytes: Buffer): void {
    for (let from = 0; from < bytes.length;) {
      if (this.at === this.chunk.length) this.room(1);
      const n = Math.min(bytes.length - from, this.chunk.length - this.at);
      bytes.copy(this.chunk, this.at, from, from + n);
      this.at += n;
      from += n;
    }
  }

  /** A timestamp's text: milliseconds in the text format, seconds in OpenMetrics. */
  private stampText(timestampMs: number): string {
    return this.format === 'openmetrics' ? `${timestampMs / 1000}` : `${Math.round(timestampMs)}`;
  }

  private write(text: string): void {
    this.pieces.push(text);
    this.chars += text.length;
    if (this.chars >= CHUNK_CHARS) this.encodePieces(false);
  }

  /**
   * Encodes the text gathered after the chunk's bytes: into the chunk when it fits there, or when byte
   * samples follow (`more`); otherwise as a chunk of its own after the chunk is handed out (text only,
   * as the writer always did: no chunk of bytes is made for text).
   */
  private encodePieces(more: boolean): void {
    const text = this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join('');
    this.pieces = [];
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
    const most = 3 * this.chars;
    this.chars = 0;
    if (this.at + most <= this.chunk.length || (more && most <= CHUNK_BYTES)) {
      this.room(most);
      this.at += this.chunk.write(text, this.at, 'utf8');
      return;
    }
    this.handOut();
    this.out(Buffer.from(text, 'utf8'));
  }

  /** Makes room for `bytes` more in the chunk: hands it out when they do not fit, and starts the next. */
  private room(bytes: number): void {
    if (this.at + bytes <= this.chunk.length) return;
    this.handOut();
    this.chunk = bytes <= CHUNK_BYTES && this.pool ? this.pool.take() : Buffer.allocUnsafe(Math.max(CHUNK_BYTES, bytes));
  }

  /** Hands out the chunk's bytes (only: the pieces gathered after them stay). */
  private handOut(): void {
    if (this.at === 0) return;
    const chunk = this.chunk.subarray(0, this.at);
    this.chunk = NO_BYTES;
    this.at = 0;
    this.out(chunk);
  }
}

/** Room for rendering runs, grown to the longest; each run's bytes are copied out of it at their length. */
let runScratch = Buffer.alloc(0);

/** A run's samples as bytes, each line as renderedBytes() writes it, and where each one's timestamp text starts. */
function renderRun(input: RunInput, stampMs: number | undefined, stamp: Uint8Array): RunBytes {
  const { open, first, tails, values, from } = input;
  let most = 0;
  for (let i = 0; i < tails.length; i += 1) most += open.length + first.length + (tails[i] as Uint8Array).length + 2 + NUMBER_BYTES + stamp.length;
  if (runScratch.length < most) runScratch = Buffer.allocUnsafe(most);
  const out = runScratch;
  const stampAt = new Uint32Array(tails.length);
  const kept = new Float64Array(tails.length);
  let at = 0;
  for (let i = 0; i < tails.length; i += 1) {
    const value = values[from + i] as number;
    const tail = tails[i] as Uint8Array;
    kept[i] = value;
    at = writeSampleHead(out, at, open, first, tail);
    at = Number.isSafeInteger(value) ? writeInteger(out, at, value) : at + out.write(formatValue(value), at, 'latin1');
    stampAt[i] = at;
    out.set(stamp, at);
    at += stamp.length;
  }
  return { bytes: Buffer.from(out.subarray(0, at)), stampAt, stampMs, stampLength: stamp.length, open, first, tails, values: kept };
}

/**
 * A byte sample's line up to its value at `at`: the name and `{`, the labels (the target's, then the
 * rest), `} `; returns the end. TypedArray.set: a copy in the engine costs less than a loop over a
 * line's ~100 bytes.
 */
function writeSampleHead(out: Uint8Array, at: number, open: Uint8Array, first: Uint8Array, rest: Uint8Array): number {
  out.set(open, at);
  at += open.length;
  out.set(first, at);
  at += first.length;
  out.set(rest, at);
  at += rest.length;
  out[at++] = CLOSE_BRACE;
  out[at++] = SPACE;
  return at;
}

/** Writes a safe integer as JavaScript prints it (no exponent below 1e21; -0 as 0) at `at`; returns the end. */
function writeInteger(chunk: Uint8Array, at: number, v: number): number {
  if (v < 0) {
    chunk[at++] = MINUS;
    v = -v;
  }
  let digits = 1;
  for (let rest = Math.floor(v / 10); rest > 0; rest = Math.floor(rest / 10)) digits += 1;
  const end = at + digits;
  for (let i = end - 1; i >= at; i -= 1) {
    chunk[i] = DIGIT_ZERO + (v % 10);
    v = Math.floor(v / 10);
  }
  return end;
}

/** Renders parts to one string (tests, and readers that want the whole text). */
export async function renderToString(parts: readonly (readonly MetricFamily[])[], format: ExpositionFormat = 'text'): Promise<string> {
  const chunks: Buffer[] = [];
  const writer = new ExpositionWriter(format, (c) => chunks.push(c));
  for (const part of parts) await writer.part(part);
  writer.end();
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Renders one part to UTF-8 buffers of about 64 KB, without the exposition's end: a scrape keeps its
 * exposition as these, never as one string or one buffer, and a response writes them one by one.
 */
export async function renderPartChunks(families: readonly MetricFamily[], format: ExpositionFormat, pool?: ChunkPool): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  const writer = new ExpositionWriter(format, (c) => chunks.push(c), pool);
  await writer.part(families);
  writer.flush();
  return chunks;
}
