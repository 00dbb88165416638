// Why a Lustre file or value was not taken, for the `reason` label of the collectors' error counters
// (docs/metrics.md). Every file or entry skipped is counted under one of these, never silently.
import { FileTooLargeError, NotRegularFileError } from '../util/pseudo-files.js';

/**
 * Why a file that exists was not read: `not_regular_file` (a FIFO, device, socket or directory where
 * Lustre has a pseudo-file: planted or a bad capture, refused without blocking), `too_large` (beyond the
 * whole-file bound of small stats files), `unreadable` (open or read failed: EACCES, EIO, a directory
 * that could not be listed).
 */
export const READ_ERROR_REASONS = ['not_regular_file', 'too_large', 'unreadable'] as const;
export type ReadErrorReason = (typeof READ_ERROR_REASONS)[number];

/** job_stats streams its file up to max-file-bytes (counted as truncated reads): never too_large. */
export const JOBSTATS_READ_ERROR_REASONS = ['not_regular_file', 'unreadable'] as const satisfies readonly ReadErrorReason[];

/**
 * Why job_stats text was skipped: `malformed_line` (a line of no known shape, or over 64 KiB),
 * `value_out_of_range` (an entry whose samples or sum is beyond the u64 Lustre prints: the whole entry is
 * rejected), `too_many_fields` (counters beyond the exporter's table of operation names: garbage names).
 */
export const PARSE_ERROR_REASONS = ['malformed_line', 'value_out_of_range', 'too_many_fields'] as const;
export type ParseErrorReason = (typeof PARSE_ERROR_REASONS)[number];

/**
 * Why a job_stats read stopped before the end of its file (what was read counts, the entries beyond
 * keep their values): `max_file_bytes`, or `timeout` (the target's read deadline, or the collector's
 * read deadline before the target was reached).
 */
export const CUT_REASONS = ['max_file_bytes', 'timeout'] as const;
export type CutReason = (typeof CUT_REASONS)[number];

export type ReasonCounts<R extends string> = Record<R, number>;

export function noReadErrors(): ReasonCounts<ReadErrorReason> {
  return { not_regular_file: 0, too_large: 0, unreadable: 0 };
}

export function readErrorReason(err: unknown): ReadErrorReason {
  if (err instanceof NotRegularFileError) return 'not_regular_file';
  if (err instanceof FileTooLargeError) return 'too_large';
  return 'unreadable';
}
