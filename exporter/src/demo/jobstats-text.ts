// Writes job_stats text in the layout of the Lustre 2.14 servers the demo's captures come from
// (captures/*.lctl.txt): one `- job_id:` block per entry with snapshot/start/elapsed times and one
// `{ samples, unit, min, max, sum, sumsq[, hist] }` line per operation, printf widths included, so the
// exporter reads the replay exactly as it reads a server's file.
//
// Only samples and sum are free: min, max, sumsq and the hist bucket are derived from the mean, so the
// lines stay consistent (min <= mean <= max, sumsq = samples * mean^2) without being tracked.

export interface ReplayCounter {
  readonly name: string;
  /** `usecs` (latency) or `bytes`. */
  readonly unit: string;
  readonly samples: bigint;
  readonly sum: bigint;
}

export interface ReplayEntry {
  /** The job id as printed, quotes included (`"4203:2003:n018"`, `SLURM_JOB10`). */
  readonly printedId: string;
  /** Seconds since the epoch; constant for the life of the entry (a new value means a restart). */
  readonly startTime: number;
  readonly counters: readonly ReplayCounter[];
}

/** 2.14 quotes ids that contain `:` (the YAML separator), as the captures show. */
export function printedJobId(id: string): string {
  return id.includes(':') ? `"${id}"` : id;
}

const pad = (value: bigint | number, width: number): string => String(value).padStart(width, ' ');
export const seconds = (value: number): string => `${value.toFixed(9)} secs.nsecs`;

/** Lustre's hist label of a power-of-two bucket: 512, 4K, 1M, 16M. */
function histLabel(bytes: bigint): string {
  let bucket = 1n;
  while (bucket * 2n <= bytes) bucket *= 2n;
  if (bucket >= 1n << 30n) return `${bucket >> 30n}G`;
  if (bucket >= 1n << 20n) return `${bucket >> 20n}M`;
  if (bucket >= 1n << 10n) return `${bucket >> 10n}K`;
  return String(bucket);
}

/** min, max and sumsq of a counter from its mean: transfers of one job have one size here, latencies spread around their mean. */
export function derivedFields(c: ReplayCounter): { readonly mean: bigint; readonly min: bigint; readonly max: bigint; readonly sumsq: bigint } {
  const mean = c.samples === 0n ? 0n : c.sum / c.samples;
  const bytes = c.unit === 'bytes';
  return { mean, min: bytes ? mean : mean / 2n, max: bytes ? mean : mean * 4n, sumsq: c.samples * mean * mean };
}

function counterLine(c: ReplayCounter): string {
  const bytes = c.unit === 'bytes';
  const { mean, min, max, sumsq } = derivedFields(c);
  const hist = bytes ? (c.samples === 0n ? ', hist: {  }' : `, hist: { ${histLabel(mean)}: ${c.samples} }`) : '';
  const name = `${c.name}:`.padEnd(16, ' ');
  return `  ${name} { samples: ${pad(c.samples, 11)}, unit: ${c.unit}, min: ${pad(min, 8)}, max: ${pad(max, 8)}, sum: ${pad(c.sum, 16)}, sumsq: ${pad(sumsq, 18)}${hist} }`;
}

/** The content of one target's job_stats file at `nowSec`. */
export function jobStatsText(entries: readonly ReplayEntry[], nowSec: number): string {
  const lines = ['job_stats:'];
  for (const entry of entries) {
    lines.push(
      `- job_id:          ${entry.printedId}`,
      `  snapshot_time:   ${seconds(nowSec)}`,
      `  start_time:      ${seconds(entry.startTime)}`,
      `  elapsed_time:    ${seconds(Math.max(0, nowSec - entry.startTime))}`,
    );
    for (const counter of entry.counters) lines.push(counterLine(counter));
  }
  return lines.join('\n') + '\n';
}
