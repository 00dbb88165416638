// Waiting for the scrape that holds a job's last counts. A job that has just ended (the Slurm
// TaskEpilog runs right after its batch script) sent its last frames to the exporter, but Prometheus
// has them only after its next scrape of that exporter: a report made at once would miss up to one
// scrape interval of the job, all of it for a job shorter than that. So the report first waits until
// every series of the job it finds (of the families below) has a sample taken at or after `afterS`,
// at most `maxMs`.
import { instantQuery, TopSourceError, type PrometheusQueryOptions } from '../top/prometheus-source.js';
import { promString } from '../top/promql.js';
import { ReportError } from './log-source.js';

/** One family per kind of exporter that counts a job: the node's profiler, the Lustre servers' job_stats. */
const FAMILIES = ['jobio_profiler_runtime_seconds_total', 'jobio_lustre_jobstats_operations_total'] as const;

export interface ScrapeWaitOptions {
  readonly url: string;
  readonly jobid: string;
  /** Samples taken at or after this time (s since the epoch) count. */
  readonly afterS: number;
  readonly maxMs: number;
  readonly timeoutMs: number;
  /** Between two looks, ms. */
  readonly pollMs?: number;
}

/** True once the job has series and each was scraped at or after afterS; false when maxMs passed first. */
export async function waitForScrapeAfter(o: ScrapeWaitOptions): Promise<boolean> {
  const q: PrometheusQueryOptions = { url: o.url, mode: 'job', intervalMs: 0, filters: {}, timeoutMs: o.timeoutMs };
  const deadline = Date.now() + o.maxMs;
  for (;;) {
    let latest: number[];
    try {
      // timestamp(): when each series' newest sample was scraped (within the 5 min look-back); the
      // oldest of them, so every node's exporter (and every Lustre target's) was scraped since
      const found = await Promise.all(FAMILIES.map((f) => instantQuery(q, `min(timestamp(${f}{jobid=${promString(o.jobid)}}))`)));
      latest = found.flatMap((r) => r.map((x) => Number(x.value[1])));
    } catch (err) {
      if (err instanceof TopSourceError) throw new ReportError(err.message);
      throw err;
    }
    if (latest.length > 0 && latest.every((t) => t >= o.afterS)) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise((r) => setTimeout(r, Math.min(o.pollMs ?? 1000, left)));
  }
}
