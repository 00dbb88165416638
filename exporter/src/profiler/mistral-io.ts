// The `io` object of Mistral `mountpoint`/`network` records (docs/jobio-run.md): keys
// `<calltype>_<sizerange>` for read/write (`read_0-32KiB`, `read_all`, …), the bare call type for the
// others (`open`, `seek`, …) and `metadata` (every call type but read, write, seek); each with
// `bytes`, `calls`, `duration` (µs) measures as totals and per-second statistics over a window.
import { CALL_TYPES, POW2_BINS, SIZE_BINS } from '../parsers/profiler-wire.js';
import { slot, type Counters } from './counters.js';
import type { SecondsWindow } from './run-totals.js';

/**
 * Size ranges of the read or write keys: small-medium-large (the thresholds), binary (powers of two),
 * combined (only the aggregate `read_all`), both (the thresholds and the powers of two: jobio's extension).
 */
export type SizeBinning = 'small-medium-large' | 'binary' | 'combined' | 'both';
/** combined: one `metadata` key; separate: one key per call type; both; no: neither. */
export type MetadataMode = 'combined' | 'separate' | 'both' | 'no';

export interface DirectionKeys {
  readonly enabled: boolean;
  /** Durations reported in this direction's keys. */
  readonly duration: boolean;
  readonly sized: SizeBinning;
}

export interface IoKeyOptions {
  readonly read: DirectionKeys;
  readonly write: DirectionKeys;
  readonly seek: boolean;
  readonly metadata: MetadataMode;
  /** Durations of the metadata keys and of seek. */
  readonly metadataDuration: boolean;
  readonly smallThreshold: number;
  readonly largeThreshold: number;
  /** Durations are omitted when fewer calls than this were timed. */
  readonly minSampled: number;
}

export interface PerSecond {
  total: number;
  'min/s': number;
  'mean/s': number;
  'median/s': number;
  'max/s': number;
}

export interface IoEntry {
  bytes?: PerSecond;
  calls: PerSecond;
  duration?: PerSecond & { 'mean/call': number; 'max/call'?: number };
}

/** Call types with their own key in Mistral's list; close and sync count only towards `metadata`. */
const KEYED_TYPES = ['open', 'create', 'access', 'delete', 'fschange', 'mmap', 'seek', 'connect', 'accept'] as const;
const NOT_METADATA = new Set(['read', 'write', 'seek']);

const IEC = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/** 32768 → "32KiB", 1000 → "1000B": the largest IEC unit that divides the value exactly. */
export function iec(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < IEC.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value}${IEC[unit]}`;
}

/** Size-range names of the named bins, in SIZE_BINS order. */
export function namedRanges(small: number, large: number): string[] {
  return [`0-${iec(small)}`, `${iec(small)}-${iec(large)}`, `${iec(large)}+`];
}

/** Size-range name of power-of-two bin i (0 = exactly zero bytes). */
export function pow2Range(i: number): string {
  return i === 0 ? '0-1B' : `${iec(2 ** (i - 1))}-${iec(2 ** i)}`;
}

interface KeyValues {
  calls: number;
  bytes?: number;
  timeNs?: number;
  sampled: number;
  /** the longest single timed call (ns); 0: none measured (or a sender without the maxima) */
  maxNs?: number;
}

const callIndex = (name: string): number => CALL_TYPES.indexOf(name as never);

/** The calls made (in a second: those that happened in it, an open whose class its later close decides included). */
function callsOf(v: Counters, c: number): number {
  return v[slot.made(c)] ?? 0;
}

/** Their estimated time, and how many were timed (likewise: an open's time in the second it was made). */
function timeOf(v: Counters, c: number): number {
  return v[slot.madeTimeNs(c)] ?? 0;
}
function sampledOf(v: Counters, c: number): number {
  return v[slot.madeSampled(c)] ?? 0;
}

/** The figures of every key for one counter vector (a second, or a whole window). */
export function keyedValues(v: Counters, o: Pick<IoKeyOptions, 'read' | 'write' | 'smallThreshold' | 'largeThreshold'>): Map<string, KeyValues> {
  const out = new Map<string, KeyValues>();
  (['read', 'write'] as const).forEach((dir, d) => {
    const c = callIndex(dir);
    const sampled = sampledOf(v, c);
    const sized = o[dir].sized;
    if (sized === 'small-medium-large' || sized === 'both') {
      const names = namedRanges(o.smallThreshold, o.largeThreshold);
      SIZE_BINS.forEach((_, b) =>
        out.set(`${dir}_${names[b]}`, {
          calls: v[slot.sizedCalls(d, b)] ?? 0,
          bytes: v[slot.sizedBytes(d, b)] ?? 0,
          timeNs: v[slot.sizedTimeNs(d, b)] ?? 0,
          sampled,
          maxNs: v[slot.maxSizedNs(d, b)] ?? 0,
        }),
      );
    }
    if (sized === 'binary' || sized === 'both') {
      // A power-of-two range never has the name of a threshold range (0-1B, 1B-2B, … against 0-<small>).
      for (let i = 0; i < POW2_BINS; i++) {
        const key = `${dir}_${pow2Range(i)}`;
        if (!out.has(key)) out.set(key, { calls: v[slot.pow2Calls(d, i)] ?? 0, bytes: v[slot.pow2Bytes(d, i)] ?? 0, sampled: 0 });
      }
    }
    let bytes = 0;
    for (let b = 0; b < SIZE_BINS.length; b++) bytes += v[slot.sizedBytes(d, b)] ?? 0;
    out.set(`${dir}_all`, { calls: callsOf(v, c), bytes, timeNs: timeOf(v, c), sampled, maxNs: v[slot.maxCallNs(c)] ?? 0 });
  });
  for (const name of KEYED_TYPES) {
    const c = callIndex(name);
    out.set(name, { calls: callsOf(v, c), timeNs: timeOf(v, c), sampled: sampledOf(v, c), maxNs: v[slot.maxCallNs(c)] ?? 0 });
  }
  const metadata: KeyValues = { calls: 0, timeNs: 0, sampled: 0, maxNs: 0 };
  CALL_TYPES.forEach((name, c) => {
    if (NOT_METADATA.has(name)) return;
    metadata.calls += callsOf(v, c);
    metadata.timeNs = (metadata.timeNs ?? 0) + timeOf(v, c);
    metadata.sampled += sampledOf(v, c);
    metadata.maxNs = Math.max(metadata.maxNs ?? 0, v[slot.maxCallNs(c)] ?? 0);
  });
  out.set('metadata', metadata);
  return out;
}

/** Mistral writes these figures as whole numbers (bytes, calls, µs a second or a call). */
const whole = (x: number): number => Math.round(x);

/**
 * Statistics of the per-second values (the seconds missing from `values` are zeros), as whole
 * numbers unless `round` says otherwise (the gpu figures keep their fractions).
 */
export function perSecond(values: readonly number[], seconds: number, round: (x: number) => number = whole): PerSecond {
  const sorted = [...values].sort((a, b) => a - b);
  const zeros = Math.max(0, seconds - sorted.length);
  const n = Math.max(1, zeros + sorted.length);
  // The i-th smallest of the n seconds, without materialising the zeros of a long quiet run.
  const at = (i: number): number => (i < zeros ? 0 : (sorted[i - zeros] ?? 0));
  const total = sorted.reduce((a, b) => a + b, 0);
  return {
    total: round(total),
    'min/s': round(at(0)),
    'mean/s': round(total / n),
    'median/s': round((at(Math.floor((n - 1) / 2)) + at(Math.ceil((n - 1) / 2))) / 2),
    'max/s': round(at(n - 1)),
  };
}

/** Whether a key is written, and with its duration, under the options (read.enabled, metadata, ...). */
export function keySelected(key: string, o: IoKeyOptions): { written: boolean; duration: boolean } {
  const dir = key.startsWith('read_') ? o.read : key.startsWith('write_') ? o.write : undefined;
  if (dir) return { written: dir.enabled, duration: dir.duration };
  if (key === 'seek') return { written: o.seek, duration: o.metadataDuration };
  const written = key === 'metadata' ? o.metadata === 'combined' || o.metadata === 'both' : o.metadata === 'separate' || o.metadata === 'both';
  return { written, duration: o.metadataDuration };
}

/**
 * Whether a key's duration is shown: Mistral's rule, at least `minSampled` timed calls (and one) in
 * the window. Time without calls in the window is time the library held back above its bound and
 * released later, in a second where the process made no such call: the calls it was measured on are
 * the run's before the window, so it counts theirs.
 */
function durationShown(t: KeyValues, before: KeyValues | undefined, o: IoKeyOptions): boolean {
  const sampled = t.calls > 0 ? t.sampled : t.sampled + (before?.sampled ?? 0);
  return t.timeNs !== undefined && sampled >= o.minSampled && sampled > 0;
}

/**
 * The `io` object for a window of seconds; keys without calls, bytes or a duration shown, and keys the
 * options leave out, are omitted. A key may show bytes or a duration with 0 calls (time released after
 * its calls' frame): so the frames add up to the job total. Its duration's `total` is the difference of
 * the run's totals rounded to whole µs at the window's end and start, so the rounded frames add up to
 * the rounded job total exactly; `mean/call` is 0 where there is no call.
 */
export function ioObject(window: SecondsWindow, o: IoKeyOptions): Record<string, IoEntry> {
  const totals = keyedValues(window.sum, o);
  const before = window.before ? keyedValues(window.before, o) : undefined;
  const seconds = window.present.map((v) => keyedValues(v, o));
  const io: Record<string, IoEntry> = {};
  for (const [key, t] of totals) {
    const selected = keySelected(key, o);
    const b = before?.get(key);
    const duration = selected.duration && (t.calls > 0 || (t.timeNs ?? 0) > 0) && durationShown(t, b, o);
    if (!selected.written || (t.calls === 0 && (t.bytes ?? 0) === 0 && !duration)) continue;
    const series = (pick: (k: KeyValues) => number): number[] =>
      seconds.map((s) => {
        const kv = s.get(key);
        return kv ? pick(kv) : 0;
      });
    const entry: IoEntry = {
      calls: perSecond(
        series((k) => k.calls),
        window.seconds,
      ),
    };
    if (t.bytes !== undefined)
      entry.bytes = perSecond(
        series((k) => k.bytes ?? 0),
        window.seconds,
      );
    if (duration) {
      const d = perSecond(
        series((k) => (k.timeNs ?? 0) / 1000),
        window.seconds,
      );
      entry.duration = { ...d, 'mean/call': t.calls > 0 ? whole(d.total / t.calls) : 0 };
      // measured, not estimated: the longest timed call of the window (absent when no frame of the window carried one)
      if ((t.maxNs ?? 0) > 0) entry.duration['max/call'] = whole((t.maxNs ?? 0) / 1000);
    }
    io[key] = entry;
  }
  return io;
}
