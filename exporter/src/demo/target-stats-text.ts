// A target's own totals in the plain stats layout of the same 2.14 servers (`obdfilter.*.stats`,
// `mdt.*.md_stats`, as in `lprocfs_stats_seq_show()`): what the target served, the sum of the entries
// the replay writes to its job_stats. Lustre prints only counters with samples.
import { derivedFields, seconds, type ReplayCounter, type ReplayEntry } from './jobstats-text.js';

/** The stats file of a target whose job_stats holds `entries`, at `nowSec`. */
export function targetStatsText(entries: readonly ReplayEntry[], nowSec: number): string {
  const totals = new Map<string, { unit: string; samples: bigint; sum: bigint }>();
  for (const entry of entries) {
    for (const c of entry.counters) {
      const total = totals.get(c.name) ?? { unit: c.unit, samples: 0n, sum: 0n };
      total.samples += c.samples;
      total.sum += c.sum;
      totals.set(c.name, total);
    }
  }
  const start = Math.min(nowSec, ...entries.map((e) => e.startTime));
  const lines = [`${'snapshot_time'.padEnd(25)} ${seconds(nowSec)}`, `${'start_time'.padEnd(25)} ${seconds(start)}`, `${'elapsed_time'.padEnd(25)} ${seconds(nowSec - start)}`];
  for (const [name, total] of totals) {
    if (total.samples === 0n) continue;
    const { min, max, sumsq } = derivedFields({ name, ...total } satisfies ReplayCounter);
    lines.push(`${name.padEnd(25)} ${total.samples} samples [${total.unit}] ${min} ${max} ${total.sum} ${sumsq}`);
  }
  return lines.join('\n') + '\n';
}
