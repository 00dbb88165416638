// Prometheus durations (`30s`, `5m`, `1h30m`) to and from seconds; validated so they can go into PromQL.

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) {
    throw new Error(`invalid duration: ${JSON.stringify(text)}`);
  }
  let total = 0;
  for (const m of trimmed.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)) {
    total += Number(m[1]) * (UNIT_SECONDS[m[2] ?? 's'] ?? 1);
  }
  return total;
}

/** Seconds to the shortest exact Prometheus duration (whole seconds; at least 1s). */
export function formatDuration(seconds: number): string {
  let rest = Math.max(1, Math.round(seconds));
  let out = '';
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
