// Prometheus-style durations: 1h30m, 15s, 250ms, 2d. Used by flags such as --scrape.timeout.
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)/y;

/** Parses a duration into milliseconds; throws an Error naming the bad text. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '0') {
    if (trimmed === '0') return 0;
    throw new Error(`invalid duration "${text}": empty`);
  }
  PART.lastIndex = 0;
  let total = 0;
  while (PART.lastIndex < trimmed.length) {
    const match = PART.exec(trimmed);
    if (!match) throw new Error(`invalid duration "${text}": expected a number and a unit (ms, s, m, h, d, w, y), e.g. 30s or 1h30m`);
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
  }
  if (!Number.isFinite(total)) throw new Error(`invalid duration "${text}"`);
  return total;
}

export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
