// The bytes of a run of byte samples (SampleSink.renderedRun) kept from one scrape to the next: a family
// whose values seldom change between scrapes (the rate density of an idle target: 426 lines a target, the
// same counts window after window) has them copied as they are, with only their timestamps rewritten.
//
// Why: writing 460,000 density lines of 1,000 targets sample by sample was most of a scrape's CPU, and
// their text changes only in the timestamp while the target is idle. The bytes are kept as one Buffer
// per run (memory outside the JavaScript heap, which a full collection does not walk), not as strings.
import type { ExpositionFormat } from './exposition-writer.js';

/** What a run's rendering depends on besides its timestamp: when any differs, the run is written again. */
export interface RunInput {
  /** The sample name and `{`, as UTF-8. */
  readonly open: Uint8Array;
  /** The labels every sample of the run shares first (`target="…"`), as UTF-8. */
  readonly first: Uint8Array;
  /** Each sample's own labels after `first` (`,class="…"`), as UTF-8: the run's samples, in order. */
  readonly tails: readonly Uint8Array[];
  /** The sample of tail i has the value values[from + i]. */
  readonly values: ArrayLike<number>;
  readonly from: number;
}

/** One format's rendering of a run: its bytes, and where each sample's timestamp text starts in them. */
export interface RunBytes {
  readonly bytes: Buffer;
  readonly stampAt: Uint32Array;
  /** The timestamp written (undefined: none) and its text's length (a space, the number, the newline). */
  stampMs: number | undefined;
  readonly stampLength: number;
  readonly open: Uint8Array;
  readonly first: Uint8Array;
  readonly tails: readonly Uint8Array[];
  /** The values written, by tail. */
  readonly values: Float64Array;
}

/** What a writer kept of a run, per format; a family keeps one per run (per target) while it shows it. */
export class SampleRunMemo {
  text: RunBytes | undefined;
  openmetrics: RunBytes | undefined;
  /** The family's own mark (the last render that showed the run), to forget runs no longer shown. */
  seen = 0;

  /** The kept bytes of `format` when they are the same run (labels objects and values) with a timestamp text as long. */
  reusable(format: ExpositionFormat, input: RunInput, stampLength: number): RunBytes | undefined {
    const kept = this[format];
    if (kept === undefined || kept.stampLength !== stampLength || kept.first !== input.first || kept.tails !== input.tails) return undefined;
    if (Buffer.compare(kept.open, input.open) !== 0) return undefined;
    const { values, from } = input;
    const was = kept.values;
    for (let i = 0; i < was.length; i += 1) if (was[i] !== values[from + i]) return undefined;
    return kept;
  }
}

/**
 * Rewrites the timestamp text of every sample of a run kept (the same length: reusable() said so). Only
 * from the first byte that differs from the text written: one window's end and the next differ in their
 * last few digits, and a byte loop over those costs less than a copy call per sample.
 */
export function restamp(run: RunBytes, stampMs: number | undefined, stamp: Uint8Array): void {
  if (run.stampMs === stampMs) return;
  const { bytes, stampAt } = run;
  const length = stamp.length;
  let first = 0;
  if (stampAt.length > 0) {
    const at = stampAt[0] as number;
    while (first < length && bytes[at + first] === stamp[first]) first += 1;
  }
  for (let i = 0; i < stampAt.length; i += 1) {
    const at = stampAt[i] as number;
    for (let k = first; k < length; k += 1) bytes[at + k] = stamp[k] as number;
  }
  run.stampMs = stampMs;
}
