// Typed surface of the jobio job_stats line addon (native/jobscan).

/** Numbers per record in scanLines()'s output. */
export const recordFields: number;

/**
 * Records of the lines of bytes[start, end) that change something into `out` (recordFields numbers
 * each: kind 1 other line / 2 counter line / 3 start_time, line start, line end; for a counter: name
 * start, name end, unit start or -1, unit end, samples, sum or -1, name number, unit number (-1: none
 * or the table is full; the same bytes always get the same number in this thread); for start_time:
 * seconds at 7), as many as fit; returns how many were written.
 */
export function scanLines(bytes: Uint8Array, start: number, end: number, out: Float64Array): number;
