// Drives a JobStatsAccumulator through scrapes and reads back what the collector would export, as
// plain maps, so scenario and property tests can assert exact values without prom-client.
import { JobStatsAccumulator, type TargetRef, type UserLabel } from '../../exporter/src/lustre/jobstats-accumulator.js';
import { compileJobIdFormats } from '../../exporter/src/lustre/jobid-format.js';
import { exportedValue } from '../../exporter/src/lustre/series-book.js';
import { u64ToNumber } from '../../exporter/src/lustre/u64.js';

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

export function read(acc: JobStatsAccumulator): ScrapeOutput {
  const exported = new Map<string, number>();
  const held = new Map<string, number>();
  const targets: ScrapeOutput['targets'] = new Map();
  const fields = acc.fields.fields;
  for (const t of acc.targetViews()) {
    targets.set(t.name, { read: t.read, quality: { ...t.quality }, folded: t.foldedJobs, exportedJobs: t.exportedJobs, parseErrors: t.parseErrorsTotal, readErrors: t.readErrorsTotal, expired: t.expiredJobsTotal });
    for (const s of t.series) {
      for (let f = 0; f < fields.length; f += 1) {
        const value = exportedValue(s, f, acc.scrapeEpoch);
        if (value === undefined) continue;
        const field = fields[f]!;
        const labels = [t.name, s.labels.jobid, s.labels.user, ...(s.labels.process !== undefined ? [`process=${s.labels.process}`] : [])];
        if (field.kind === 'operations' || field.kind === 'operation_seconds') labels.push(field.operation);
        const key = `${field.kind}{${labels.join(',')}}`;
        // Two targets of one name (an MDT and an OST both called OST0001 in a test tree) share label
        // sets: prom-client adds their inc()s, and so does this map.
        exported.set(key, (exported.get(key) ?? 0) + u64ToNumber(value));
        const full = u64ToNumber(s.values[f]!);
        if (full !== u64ToNumber(value)) held.set(key, (held.get(key) ?? 0) + full);
      }
    }
  }
  return { exported, held, targets };
}

/** Sum of exported values whose key starts with `prefix` (e.g. `write_bytes{OST0,`). */
export function total(values: ReadonlyMap<string, number>, prefix: string): number {
  let sum = 0;
  for (const [k, v] of values) if (k.startsWith(prefix)) sum += v;
  return sum;
}
