// Scaled units for the screen of `jobio top`: a rate of 9 TiB per interval reads `9.0 TiB/s`-style,
// not `9437184.0`. Binary prefixes for bytes (what Lustre and lltop count in), decimal for counts.
const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'] as const;
const COUNT_UNITS = ['', 'k', 'M', 'G', 'T', 'P'] as const;

/** Three significant digits at most, never in exponent notation: 0, 0.5, 12.3, 123, 1023. */
function short(value: number): string {
  if (value === 0) return '0';
  if (value >= 100) return String(Math.round(value));
  if (value >= 10) return value.toFixed(1).replace(/\.0$/, '');
  return value.toFixed(2).replace(/\.?0+$/, '');
}

function scaled(value: number, step: number, units: readonly string[]): { number: string; unit: string } {
  let v = Math.abs(value);
  let i = 0;
  // 1000 and more of a unit moves up, so a cell never shows four integer digits (1023 KiB → 1 MiB).
  while (v >= 999.5 && i < units.length - 1) {
    v /= step;
    i += 1;
  }
  return { number: `${value < 0 ? '-' : ''}${short(v)}`, unit: units[i] ?? '' };
}

/** Bytes per second: `0`, `512 B/s`, `1.5 MiB/s`, `9 TiB/s` (a bare 0 reads faster in a column of rates). */
export function byteRate(bytesPerSecond: number): string {
  if (bytesPerSecond === 0) return '0';
  const { number, unit } = scaled(bytesPerSecond, 1024, BYTE_UNITS);
  return `${number} ${unit}/s`;
}

/** A count per second: `0`, `12.5`, `1.26M`, `125k`. */
export function countRate(perSecond: number): string {
  const { number, unit } = scaled(perSecond, 1000, COUNT_UNITS);
  return `${number}${unit}`;
}

/** A window for titles: 10s, 2m, 1m30s. */
export function windowText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  const rest = s % 60;
  if (m < 60) return rest === 0 ? `${m}m` : `${m}m${rest}s`;
  const h = Math.floor(m / 60);
  return m % 60 === 0 && rest === 0 ? `${h}h` : `${h}h${m % 60}m`;
}
