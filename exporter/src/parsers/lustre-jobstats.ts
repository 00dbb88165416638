// Parser of Lustre `job_stats`: `/proc/fs/lustre/{mdt,obdfilter}/<target>/job_stats` (and the same
// file under /sys/fs/lustre or /sys/kernel/debug/lustre), or `lctl get_param *.*.job_stats` output
// with its `<type>.<target>.job_stats=` framing and several targets in one dump.
//
// Every shape from Lustre 2.4 to 2.17 (see docs/lustre.md):
//   job_stats:                                   (absent in an empty 2.17 file)
//   - job_id:          1234:5000:node1           (2.15.2+: "quoted\x3Aescaped")
//     snapshot_time:   1510782606                (2.15.0/1: `snapshot_time   : 1896533.4 secs.nsecs`)
//     start_time:      1723102025.057286226 secs.nsecs
//     read_bytes:      { samples: 1, unit: bytes, min:    4096, max:16777216, sum: 4096[, sumsq: N][, hist: { 4K: 1 }] }
//     open:            { samples: 5, unit:  reqs }           (2.14+: unit: usecs, min, max, sum, sumsq)
//
// It is a hand-written scanner over the bytes: 20,000 entries of 2.14 OST stats are ~45 MB, and a
// regular expression per line (or a string per line) costs several times the read itself. Only the
// values the exporter uses (samples, sum) become numbers; min/max/sumsq/hist are checked and skipped.
// It never throws on input: lines it cannot read are reported to the visitor and skipped.
import { normalizeU64, type U64 } from '../util/u64.js';
import { COUNTER_LINE, linesAddon, RECORD_FIELDS, START_TIME_LINE } from './jobstats-lines-addon.js';

/** One job_stats entry, as a view that the scanner reuses for the next entry: copy what you keep. */
export interface JobStatsEntryView {
  /**
   * The job id exactly as printed (quotes and `\xHH` escapes kept): the identity of the entry. Made as
   * a string when first asked for: idBytes is the same id without one.
   */
  readonly rawId: string;
  /**
   * The id's bytes, idBytes[idStart, idEnd) (rawId is them, a character a byte), valid until the next
   * entry: a known id is compared and hashed in place, and a kept one copied as bytes.
   */
  readonly idBytes: Uint8Array;
  readonly idStart: number;
  readonly idEnd: number;
  /** `start_time` (2.15+) in seconds, a new value means Lustre restarted the entry; NaN if absent. */
  startTime: number;
  /** Number of counter lines in the arrays below. */
  count: number;
  /**
   * A samples or sum beyond the u64 range Lustre prints: the entry cannot be trusted and is rejected
   * whole (as the plain stats parser rejects such a line); its line still had a known shape.
   */
  invalid: boolean;
  readonly names: string[];
  readonly units: string[];
  readonly samples: U64[];
  /** `sum` of the counter, or -1 when the line has none (`unit: reqs` before 2.14). */
  readonly sums: U64[];
}

export interface JobStatsVisitor {
  /** `lctl get_param` framing: the following entries belong to this target (`mdt`, `es01a-MDT0000`). */
  target?(kind: string, target: string): void;
  entry(entry: JobStatsEntryView): void;
  /** A line that fits no job_stats shape; it was skipped. */
  malformed?(): void;
}

export interface JobStatsScanResult {
  readonly entries: number;
  readonly malformedLines: number;
}

// The bytes the scanner compares with (it reads the file's bytes, never decoded text).
const [NL, CR, SPACE, TAB, DASH, COLON, COMMA, EQUALS, LBRACE, RBRACE, DOT, ZERO, NINE] = [10, 13, 32, 9, 45, 58, 44, 61, 123, 125, 46, 48, 57] as const;

const MAX_U64 = (1n << 64n) - 1n;
const U64_OVER = MAX_U64 + 1n;

const JOB_ID = '- job_id:';
const JOB_STATS_SUFFIX = '.job_stats';

/**
 * Counter and unit names repeat on every line. Turning each into a fresh string costs more than the
 * rest of the line, so names are looked up by a hash of their bytes and verified byte by byte.
 */
const namesByHash = new Map<number, string>();
function internBytes(buf: Buffer, start: number, end: number): string {
  let hash = end - start;
  for (let i = start; i < end; i += 1) hash = (Math.imul(hash, 31) + buf[i]!) | 0;
  const known = namesByHash.get(hash);
  if (known !== undefined && sameBytes(known, buf, start, end)) return known;
  const text = buf.toString('latin1', start, end);
  // Bounded: garbage input must not grow this table without limit.
  if (known === undefined && namesByHash.size < 4096) namesByHash.set(hash, text);
  return text;
}

/** Whether buf[start, end) spells `text` (a latin1 string). */
function sameBytes(text: string, buf: Buffer, start: number, end: number): boolean {
  if (text.length !== end - start) return false;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) !== buf[start + i]) return false;
  return true;
}

/**
 * internBytes() with a guess: the entries of a file share one layout, so the name at line i of an
 * entry is nearly always the name at line i of the entry before. Comparing the bytes with that guess
 * skips the hash and the map lookup.
 */
function internGuess(guess: string | undefined, buf: Buffer, start: number, end: number): string {
  return guess !== undefined && sameBytes(guess, buf, start, end) ? guess : internBytes(buf, start, end);
}

/** NAME_BYTE[c] is 1 for the bytes of names and keys ([A-Za-z0-9_]): one load instead of four ranges. */
const NAME_BYTE = new Uint8Array(256);
for (let c = 0; c < 256; c += 1) NAME_BYTE[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= ZERO && c <= NINE) || c === 95 ? 1 : 0;

/** The first position from p that is not a space or a tab (end if none). */
function skipBlanks(buf: Buffer, p: number, end: number): number {
  while (p < end && (buf[p] === SPACE || buf[p] === TAB)) p += 1;
  return p;
}

/** A line longer than this is not job_stats (real lines are under 400 bytes): skipped as malformed. */
export const MAX_LINE_BYTES = 64 << 10;
const EMPTY = Buffer.alloc(0);

/** How the scanner splits and reads lines: `native` through the addon when it is built (the default), `js` always in JavaScript. */
export type ScanEngine = 'native' | 'js';

/**
 * Record buffers of the addon (2,048 lines each, ~150 KB): taken for one lines() call and given back,
 * so thousands of small files a scrape allocate none and a visitor that scans again gets its own.
 */
const RECORDS_PER_CALL = 2048;
const spareRecords: Float64Array[] = [];
/**
 * A value read from the records (a double) as the JavaScript scanner makes it: a small integer stays
 * one (held in place in arrays), where a double would be boxed in the arrays the entries keep.
 */
function small(value: number): number {
  return value >= -1 && value <= 0x3fffffff ? value | 0 : value;
}

/**
 * The scanner's reused entry view. Its id stays a range of the scanned bytes until a string is asked
 * for: a scrape of a file whose entries the exporter knows compares each id with the one it expects
 * instead of making (and hashing) a string per entry.
 */
class EntryView implements JobStatsEntryView {
  startTime = NaN;
  count = 0;
  invalid = false;
  readonly names: string[] = [];
  readonly units: string[] = [];
  readonly samples: U64[] = [];
  readonly sums: U64[] = [];
  idBytes: Buffer = EMPTY;
  idStart = 0;
  idEnd = 0;
  /** The id as a string, once made (undefined: only in idBytes). */
  private idText: string | undefined = '';
  /** Where an open entry's id is copied when the scanned bytes are about to be reused (grown as needed). */
  private ownId: Buffer = EMPTY;

  get rawId(): string {
    return (this.idText ??= this.idBytes.toString('latin1', this.idStart, this.idEnd));
  }

  /** A new entry whose id is buf[start, end) (the bytes must stay as they are until keepId()). */
  startEntry(buf: Buffer, start: number, end: number): void {
    this.idBytes = buf;
    this.idStart = start;
    this.idEnd = end;
    this.idText = undefined;
    this.startTime = NaN;
    this.count = 0;
    this.invalid = false;
  }

  /** The scanned bytes are about to be reused (the next chunk): the id of an entry still open is copied. */
  keepId(): void {
    if (this.idBytes === this.ownId) return;
    const length = this.idEnd - this.idStart;
    if (this.ownId.length < length) this.ownId = Buffer.allocUnsafe(Math.max(256, length));
    this.idBytes.copy(this.ownId, 0, this.idStart, this.idEnd);
    this.idBytes = this.ownId;
    this.idStart = 0;
    this.idEnd = length;
  }
}

/** The strings of the addon's name numbers (its table is this thread's, as this module is). */
const namesByNumber: string[] = [];

class Scanner {
  private buf: Buffer = EMPTY;
  private pos = 0;
  private lineEnd = 0;
  private entries = 0;
  private malformedLines = 0;
  private inEntry = false;
  /** Inside an `lctl get_param` value that is not a job_stats parameter: skip until the next header. */
  private skipping = false;
  private readonly view = new EntryView();

  constructor(
    private readonly visitor: JobStatsVisitor,
    private readonly engine: ScanEngine = 'native',
  ) {}

  /** Scans every line of buf[start, end); the last one need not end with a newline. */
  lines(buf: Buffer, start: number, end: number): void {
    try {
      this.linesOf(buf, start, end);
    } finally {
      // The caller may reuse buf after this call; the entry being read still needs its id.
      this.view.keepId();
    }
  }

  private linesOf(buf: Buffer, start: number, end: number): void {
    const addon = this.engine === 'native' ? linesAddon() : undefined;
    if (addon) return this.nativeLines(addon.scanLines, buf, start, end);
    this.buf = buf;
    while (start < end) {
      let eol = buf.indexOf(NL, start);
      if (eol < 0 || eol > end) eol = end;
      let lineEnd = eol;
      if (lineEnd > start && buf[lineEnd - 1] === CR) lineEnd -= 1;
      this.pos = start;
      this.lineEnd = lineEnd;
      this.line(start);
      start = eol + 1;
    }
    this.buf = EMPTY;
  }

  /**
   * lines() with the byte loop in C++: the addon splits the lines, reads the counter and start_time
   * lines it is sure of and leaves out those that change nothing (snapshot_time, blank); every other
   * line (job ids, frames, anything odd) is read by line() here as before, so both ways give the
   * same entries, counts and errors.
   */
  private nativeLines(scanLines: (bytes: Uint8Array, start: number, end: number, out: Float64Array) => number, buf: Buffer, start: number, end: number): void {
    const out = spareRecords.pop() ?? new Float64Array(RECORDS_PER_CALL * RECORD_FIELDS);
    this.buf = buf;
    try {
      while (start < end) {
        const records = scanLines(buf, start, end, out);
        for (let at = 0; at < records * RECORD_FIELDS; at += RECORD_FIELDS) {
          const kind = out[at];
          if (kind === COUNTER_LINE) this.counterRecord(out, at);
          else if (kind === START_TIME_LINE) {
            // keyLine()'s start_time: kept inside an entry, not while skipping another parameter.
            if (!this.skipping && this.inEntry) this.view.startTime = out[at + 7]!;
          } else {
            const lineStart = out[at + 1]!;
            this.pos = lineStart;
            this.lineEnd = out[at + 2]!;
            this.line(lineStart);
          }
        }
        if (records < RECORDS_PER_CALL) break;
        // The records filled up: go on after the newline of the last one's line.
        const nl = buf.indexOf(NL, out[(records - 1) * RECORD_FIELDS + 2]);
        if (nl < 0 || nl >= end) break;
        start = nl + 1;
      }
    } finally {
      this.buf = EMPTY;
      spareRecords.push(out);
    }
  }

  /** A counter line the addon read whole: what line() → keyLine() → counter() would do with it. */
  private counterRecord(out: Float64Array, at: number): void {
    if (this.skipping) return;
    if (!this.inEntry) return this.bad();
    const { buf } = this;
    const v = this.view;
    const i = v.count;
    const name = out[at + 9]!;
    v.names[i] = name < 0 ? internGuess(v.names[i], buf, out[at + 3]!, out[at + 4]!) : (namesByNumber[name] ??= buf.toString('latin1', out[at + 3], out[at + 4]));
    const unitStart = out[at + 5]!;
    const unit = out[at + 10]!;
    v.units[i] = unitStart < 0 ? '' : unit < 0 ? internGuess(v.units[i], buf, unitStart, out[at + 6]!) : (namesByNumber[unit] ??= buf.toString('latin1', unitStart, out[at + 6]));
    v.samples[i] = small(out[at + 7]!);
    v.sums[i] = small(out[at + 8]!);
    v.count = i + 1;
  }

  /** A line too long to be job_stats: counted, not scanned. */
  overlong(): void {
    this.bad();
  }

  /** End of input; `cut` says it stopped mid-file, so the entry being read is incomplete: dropped. */
  finish(cut = false): JobStatsScanResult {
    if (cut) this.inEntry = false;
    this.flush();
    return { entries: this.entries, malformedLines: this.malformedLines };
  }

  private bad(): void {
    this.malformedLines += 1;
    this.visitor.malformed?.();
  }

  private flush(): void {
    if (!this.inEntry) return;
    this.inEntry = false;
    this.entries += 1;
    this.visitor.entry(this.view);
  }

  private skipSpaces(): void {
    this.pos = skipBlanks(this.buf, this.pos, this.lineEnd);
  }

  private line(lineStart: number): void {
    this.skipSpaces();
    if (this.pos >= this.lineEnd) return; // blank line
    if (this.buf[this.pos] === DASH) return this.jobIdLine();
    // lctl headers start in column 1; so does 2.15.0's `snapshot_time   :`, which frameLine() declines.
    if (this.pos === lineStart && this.frameLine()) return;
    if (this.skipping) return;
    this.keyLine();
  }

  /** `- job_id:          <id>` starts an entry. */
  private jobIdLine(): void {
    if (this.skipping) return;
    const { buf } = this;
    // Compared in place: Buffer#compare costs a call into C++ per entry, more than these 9 bytes.
    if (this.lineEnd - this.pos < JOB_ID.length || !sameBytes(JOB_ID, buf, this.pos, this.pos + JOB_ID.length)) return this.bad();
    this.flush();
    this.pos += JOB_ID.length;
    this.skipSpaces();
    let end = this.lineEnd;
    while (end > this.pos && (buf[end - 1] === SPACE || buf[end - 1] === TAB)) end -= 1;
    this.view.startEntry(buf, this.pos, end);
    this.inEntry = true;
  }

  /**
   * `job_stats:` or an `lctl get_param` header `obdfilter.fs-OST0000.job_stats=` (its value may follow
   * on the same line). Returns false when the line is something else.
   */
  private frameLine(): boolean {
    const { buf } = this;
    let p = this.pos;
    while (p < this.lineEnd && buf[p] !== EQUALS && buf[p] !== COLON && buf[p] !== SPACE) p += 1;
    if (p < this.lineEnd && buf[p] === EQUALS) {
      this.flush();
      const param = buf.toString('latin1', this.pos, p);
      const firstDot = param.indexOf('.');
      if (firstDot > 0 && /^[a-z_]+$/.test(param.slice(0, firstDot)) && param.endsWith(JOB_STATS_SUFFIX) && param.length > firstDot + 1 + JOB_STATS_SUFFIX.length) {
        this.skipping = false;
        this.visitor.target?.(param.slice(0, firstDot), param.slice(firstDot + 1, param.length - JOB_STATS_SUFFIX.length));
      } else {
        // Another parameter of a multi-parameter dump: not ours, skip its value.
        this.skipping = true;
      }
      this.pos = p + 1;
      this.skipSpaces();
      if (this.pos < this.lineEnd && !this.skipping) this.keyLine();
      return true;
    }
    return false;
  }

  /** `name: value`, `name   : value` (2.15.0/1) or `name: { samples: … }`. */
  private keyLine(): void {
    // Positions in locals, stored back once: this runs for every line of the file.
    const { buf, lineEnd } = this;
    const nameStart = this.pos;
    let p = nameStart;
    while (p < lineEnd && NAME_BYTE[buf[p]!] === 1) p += 1;
    const nameEnd = p;
    p = skipBlanks(buf, p, lineEnd);
    // p may be at lineEnd: read no byte there. In a streamed file's last line (no newline) that byte
    // is in the reused carry buffer, left from an earlier line, and would decide the line's fate.
    if (nameEnd === nameStart || p >= lineEnd || buf[p] !== COLON) {
      this.pos = p;
      return this.bad();
    }
    p = skipBlanks(buf, p + 1, lineEnd);
    this.pos = p;
    if (p < lineEnd && buf[p] === LBRACE) {
      if (!this.inEntry) return this.bad();
      return this.counter(nameStart, nameEnd);
    }
    const nameLength = nameEnd - nameStart;
    if (nameLength === 9 && sameBytes('job_stats', buf, nameStart, nameEnd)) {
      if (p < lineEnd) this.bad();
      return;
    }
    if (nameLength === 10 && this.inEntry && sameBytes('start_time', buf, nameStart, nameEnd)) {
      this.view.startTime = this.readSeconds();
    }
    // snapshot_time, elapsed_time and fields of future versions carry nothing we export.
  }

  /** `1723102025.057286226 secs.nsecs` → seconds (NaN if not a number). */
  private readSeconds(): number {
    const { buf } = this;
    const start = this.pos;
    while (this.pos < this.lineEnd && ((buf[this.pos]! >= ZERO && buf[this.pos]! <= NINE) || buf[this.pos] === DOT)) this.pos += 1;
    return this.pos > start ? Number(buf.toString('latin1', start, this.pos)) : NaN;
  }

  /**
   * `{ samples: N, unit: U[, min: N, max: N, sum: N][, sumsq: N][, hist: { 4K: 1, … }] }`
   * The hottest loop of the exporter (one call per counter line): positions live in locals, keys are
   * told apart by length and first letters, and only samples and sum are turned into numbers.
   */
  private counter(nameStart: number, nameEnd: number): void {
    const buf = this.buf;
    const end = this.lineEnd;
    let p = this.pos + 1; // after {
    let samples: U64 = -1;
    let sum: U64 = -1;
    let unit = '';
    let closed = false;
    while (p < end) {
      let c = buf[p]!;
      while (c === SPACE && p < end) c = buf[++p]!;
      if (c === RBRACE) {
        p += 1;
        closed = true;
        break;
      }
      const keyStart = p;
      while (p < end && NAME_BYTE[buf[p]!] === 1) p += 1;
      const keyLength = p - keyStart;
      if (keyLength === 0 || buf[p] !== COLON) return this.bad();
      p += 1;
      while (p < end && buf[p] === SPACE) p += 1;
      const k0 = buf[keyStart];
      if (keyLength === 4 && k0 === 117 /* unit */) {
        const unitStart = p;
        while (p < end && NAME_BYTE[buf[p]!] === 1) p += 1;
        if (p === unitStart) return this.bad();
        unit = internGuess(this.view.units[this.view.count], buf, unitStart, p);
      } else if (keyLength === 4 && k0 === 104 /* hist */) {
        if (buf[p] !== LBRACE) return this.bad();
        // The buckets (`4K: 3, 1M: 5`) are not exported: skip to the closing brace of this line.
        while (p < end && buf[p] !== RBRACE) p += 1;
        if (p >= end) return this.bad();
        p += 1;
      } else {
        const isSamples = keyLength === 7 && k0 === 115 && buf[keyStart + 1] === 97; // samples
        const isSum = keyLength === 3 && k0 === 115 && buf[keyStart + 1] === 117; // sum
        const digitsStart = p;
        let value = 0;
        if (isSamples || isSum) {
          while (p < end) {
            const d = buf[p]! - ZERO;
            if (d < 0 || d > 9) break;
            value = value * 10 + d;
            p += 1;
          }
        } else {
          // min, max, sumsq: checked to be a number, not kept.
          while (p < end && buf[p]! >= ZERO && buf[p]! <= NINE) p += 1;
        }
        const digits = p - digitsStart;
        if (digits === 0) return this.bad();
        if (isSamples || isSum) {
          // Up to 15 digits the double above is exact; longer values go through BigInt, and beyond
          // u64 (at most 20 digits) they are not a counter Lustre can print.
          let exact: U64 = digits <= 15 ? value : digits <= 20 ? BigInt(buf.toString('latin1', digitsStart, p)) : U64_OVER;
          if (typeof exact === 'bigint') {
            if (exact > MAX_U64) {
              this.view.invalid = true;
              exact = 0;
            } else exact = normalizeU64(exact);
          }
          if (isSamples) samples = exact;
          else sum = exact;
        }
      }
      while (p < end && buf[p] === SPACE) p += 1;
      if (buf[p] === COMMA) p += 1;
      else if (buf[p] !== RBRACE) return this.bad();
    }
    while (p < end && buf[p] === SPACE) p += 1;
    if (!closed || samples === -1 || p !== end) return this.bad();
    const v = this.view;
    const i = v.count;
    v.names[i] = internGuess(v.names[i], buf, nameStart, nameEnd);
    v.units[i] = unit;
    v.samples[i] = samples;
    v.sums[i] = sum;
    v.count = i + 1;
  }
}

/** Scans one job_stats text (raw file or `lctl get_param` output), calling the visitor per entry. */
export function scanJobStats(input: Uint8Array | string, visitor: JobStatsVisitor, engine: ScanEngine = 'native'): JobStatsScanResult {
  const buf = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const scanner = new Scanner(visitor, engine);
  scanner.lines(buf, 0, buf.length);
  return scanner.finish();
}

/**
 * The same scan over a file read in chunks: memory is the chunk plus one partial line (at most
 * MAX_LINE_BYTES; a longer line is skipped to its newline and counted as malformed). Chunk buffers may
 * be reused by the caller after push() returns.
 */
export class JobStatsStream {
  private readonly scanner: Scanner;
  /** The start of a line that continues in the next chunk. */
  private carry: Buffer = Buffer.alloc(0);
  private carried = 0;
  /** Inside a line already counted as too long: drop bytes up to its newline. */
  private discarding = false;

  constructor(visitor: JobStatsVisitor, engine: ScanEngine = 'native') {
    this.scanner = new Scanner(visitor, engine);
  }

  push(chunk: Buffer): void {
    let start = 0;
    if (this.discarding || this.carried > 0) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        if (!this.discarding) this.keep(chunk, 0, chunk.length);
        return;
      }
      if (this.discarding) this.discarding = false;
      else {
        this.keep(chunk, 0, nl + 1);
        // keep() may have found the carried line too long and started discarding it
        if (!(this.discarding as boolean)) this.scanner.lines(this.carry, 0, this.carried);
        this.discarding = false;
      }
      this.carried = 0;
      start = nl + 1;
    }
    const lastNl = chunk.lastIndexOf(NL);
    if (lastNl < start) {
      this.keep(chunk, start, chunk.length);
      return;
    }
    this.scanner.lines(chunk, start, lastNl + 1);
    this.keep(chunk, lastNl + 1, chunk.length);
  }

  /** Appends chunk[start, end) to the partial line; beyond MAX_LINE_BYTES the line is dropped. */
  private keep(chunk: Buffer, start: number, end: number): void {
    const length = end - start;
    if (length === 0) return;
    if (this.carried + length > MAX_LINE_BYTES) {
      this.scanner.overlong();
      this.carried = 0;
      // The rest of the line (up to its newline) is dropped too, unless this piece already ends it.
      this.discarding = chunk[end - 1] !== NL;
      return;
    }
    if (this.carry.length < this.carried + length) {
      const grown = Buffer.allocUnsafe(Math.min(MAX_LINE_BYTES, Math.max(256, 2 * (this.carried + length))));
      this.carry.copy(grown, 0, 0, this.carried);
      this.carry = grown;
    }
    chunk.copy(this.carry, this.carried, start, end);
    this.carried += length;
  }

  /** No more input. `cut`: the file was not read to its end (a bound), its last entry is incomplete. */
  end(cut = false): JobStatsScanResult {
    if (this.carried > 0 && !cut) this.scanner.lines(this.carry, 0, this.carried);
    this.carried = 0;
    return this.scanner.finish(cut);
  }
}

export interface JobStatsCounter {
  readonly name: string;
  readonly unit: string;
  readonly samples: U64;
  /** undefined when the line has no sum (`unit: reqs` before 2.14). */
  readonly sum: U64 | undefined;
}

export interface JobStatsEntry {
  /** The target from `lctl get_param` framing; undefined in a raw file. */
  readonly target: string | undefined;
  readonly kind: string | undefined;
  readonly rawId: string;
  readonly startTime: number;
  /** A value beyond u64: the collector rejects the entry. */
  readonly invalid: boolean;
  readonly counters: readonly JobStatsCounter[];
}

/** Materialised form of scanJobStats() for tests and small inputs (the collector streams instead). */
export function parseJobStats(input: Uint8Array | string, engine: ScanEngine = 'native'): { entries: JobStatsEntry[]; malformedLines: number } {
  const entries: JobStatsEntry[] = [];
  let kind: string | undefined;
  let target: string | undefined;
  const result = scanJobStats(
    input,
    {
      target(k, t) {
        kind = k;
        target = t;
      },
      entry(v) {
        const counters: JobStatsCounter[] = [];
        for (let i = 0; i < v.count; i += 1) counters.push({ name: v.names[i]!, unit: v.units[i]!, samples: v.samples[i]!, sum: v.sums[i] === -1 ? undefined : v.sums[i] });
        entries.push({ target, kind, rawId: v.rawId, startTime: v.startTime, invalid: v.invalid, counters });
      },
    },
    engine,
  );
  return { entries, malformedLines: result.malformedLines };
}
