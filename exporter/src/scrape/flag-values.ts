// Parsers of collector flag values (`--collector.<name>.<option> VALUE`). They live below cli/ so
// collectors can name them in their flag declarations without importing the command line.
import { parseDuration } from '../util/duration.js';

/** Positive integers (max-jobs, limits). */
export function positiveInteger(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) throw new Error(`"${text}" is not a positive integer`);
  return value;
}

/** Durations that must be positive (expiry, deadlines); returns milliseconds. */
export function positiveDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new Error(`"${text}" must be a positive duration`);
  return ms;
}

/** Durations that may be 0 (off), such as a grace period; returns milliseconds. */
export function nonNegativeDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms < 0) throw new Error(`"${text}" must not be negative`);
  return ms;
}

/** The highest uid folded into user="_system"; -1 turns the folding off. */
export function uidLimit(text: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < -1) throw new Error(`"${text}" is not an integer >= -1`);
  return value;
}
