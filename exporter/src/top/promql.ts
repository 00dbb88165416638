// PromQL text built from user input. Every label value goes through escapeLabelValue(), so a hostile
// job id (`x"} or vector(1) #`) stays one string literal and cannot change the query.

/** A PromQL double-quoted string literal for `value`. */
export function promString(value: string): string {
  // Backslash first, then the quote; control characters as escapes (a raw newline is not allowed).
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
}

/** `{a="x",b="y"}` from the filters that are set (empty string when none). */
export function selector(filters: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(filters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${promString(value)}`);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** Prometheus duration text for a range selector, in whole milliseconds (`10000ms`). */
export function promDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${Math.round(ms)}ms`;
}
