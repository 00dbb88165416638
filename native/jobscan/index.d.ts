// Typed surface of the jobio job_stats line addon (native/jobscan).

/** Numbers per record in scanLines()'s output. */
export const recordFields: number;

/**
 * Records of the non-blank lines of bytes[start, end) into `out` (recordFields numbers each: kind
 * 1 other line / 2 counter line, line start, line end, name start, name end, unit start or -1, unit
 * end, samples, sum or -1), as many as fit; returns how many were written.
 */
export function scanLines(bytes: Uint8Array, start: number, end: number, out: Float64Array): number;
