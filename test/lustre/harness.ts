// Drives a JobStatsAccumulator through scrapes and reads back what the collector would export, as
// plain maps, so scenario and property tests can assert exact values without prom-client. The maps are
// written by the production refill (lustre/refill.ts), the same loop that fills the collector's metrics.
import { JobStatsAccumulator, type TargetRef, type TargetView, type UserLabel } from '../../exporter/src/lustre/jobstats-accumulator.js';
import { compileJobIdFormats } from '../../exporter/src/lustre/jobid-format.js';
import type { ExportField } from '../../exporter/src/lustre/export-fields.js';
import { refill, type LustreWriter } from '../../exporter/src/lustre/refill.js';
import type { SeriesLabels } from '../../exporter/src/lustre/series-book.js';
import { u64ToNumber, type U64 } from '../../exporter/src/util/u64.js';

export interface HarnessOptions {
  readonly maxJobs?: number;
  readonly expiryMs?: number;
  readonly jobidFormat?: string;
}

export function newAccumulator(opts: HarnessOptions = {}): JobStatsAccumulator {
  return new JobStatsAccumulator({ maxJobs: opts.maxJobs ?? 100, expiryMs: opts.expiryMs ?? 30 * 60_000, formats: compileJobIdFormats(opts.jobidFormat ?? '%j:%u:%H,%e.%u') });
}

export interface ScrapeOutput {
  /** `metric{target,jobid,user[,process][,operation]}` → exported value (latency in microseconds). */
  readonly exported: Map<string, number>;
  /** Same keys: first increments held back because the counter was created in this scrape. */
  readonly held: Map<string, number>;
  readonly targets: Map<string, { read: boolean; quality: Record<string, number>; folded: number; exportedJobs: number; parseErrors: number; readErrors: number; expired: number }>;
}

export const defaultUserLabel: UserLabel = (uid) => (uid <= 999 ? '_system' : `uid:${uid}`);

/** One scrape: `files` maps `kind/target` to the job_stats text (undefined: the read failed). */
export function scrapeOnce(acc: JobStatsAccumulator, files: Record<string, string | undefined>, now: number, userLabel: UserLabel = defaultUserLabel): ScrapeOutput {
  acc.begin();
  for (const [key, text] of Object.entries(files)) {
    const [kind, name] = key.split('/') as [string, string];
    const ref: TargetRef = { kind, name };
    if (text === undefined) acc.markFailed(ref);
    else acc.ingest(text, ref);
  }
  acc.finish(now, userLabel);
  return read(acc);
}

/** A refill writer into plain maps. */
class MapWriter implements LustreWriter<JobStatsAccumulator> {
  readonly exported = new Map<string, number>();
  readonly held = new Map<string, number>();
  readonly targets: ScrapeOutput['targets'] = new Map();

  clear(): void {
    for (const m of [this.exported, this.held, this.targets]) m.clear();
  }

  target(t: TargetView): void {
    this.targets.set(t.name, {
      read: t.read,
      quality: { ...t.quality },
      folded: t.foldedJobs,
      exportedJobs: t.exportedJobs,
      parseErrors: Object.values(t.parseErrors).reduce((a, b) => a + b, 0),
      readErrors: Object.values(t.readErrors).reduce((a, b) => a + b, 0),
      expired: t.expiredJobsTotal,
    });
  }

  sample(t: TargetView, series: SeriesLabels, field: ExportField, value: number, total: U64): void {
    const labels = [t.name, series.jobid, series.user, ...(series.process !== undefined ? [`process=${series.process}`] : [])];
    if (field.kind === 'operations' || field.kind === 'operation_seconds') labels.push(field.operation);
    const key = `${field.kind}{${labels.join(',')}}`;
    // Two targets of one name (an MDT and an OST both called OST0001 in a test tree) share label
    // sets: prom-client adds their inc()s, and so does this map.
    this.exported.set(key, (this.exported.get(key) ?? 0) + value);
    const full = u64ToNumber(total);
    if (full !== value) this.held.set(key, (this.held.get(key) ?? 0) + full);
  }
}

export function read(acc: JobStatsAccumulator): ScrapeOutput {
  const writer = new MapWriter();
  refill(acc, writer);
  return writer;
}

/** Sum of exported values whose key starts with `prefix` (e.g. `write_bytes{OST0,`). */
export function total(values: ReadonlyMap<string, number>, prefix: string): number {
  let sum = 0;
  for (const [k, v] of values) if (k.startsWith(prefix)) sum += v;
  return sum;
}
