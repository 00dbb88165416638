// Replaying job_stats under a real exporter and a real Prometheus: the pieces every such test needs.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import type { RunningPrometheus } from '../helpers/prometheus.js';

/** Replaces `dir`/job_stats atomically: the exporter never reads half a file. */
export function replaceJobStats(dir: string, text: string): void {
  writeFileSync(join(dir, 'job_stats.tmp'), text);
  renameSync(join(dir, 'job_stats.tmp'), join(dir, 'job_stats'));
}

/** The exporter's flags for the lustre_jobstats collector alone on a fake tree under `root`. */
export function jobStatsExporterArgs(root: string, rootfs = join(repoRoot, 'test/fixtures/lustre/rootfs')): string[] {
  return ['--collector.disable-defaults', '--collector.lustre_jobstats', `--path.procfs=${join(root, 'proc')}`, `--path.sysfs=${join(root, 'sys')}`, `--path.rootfs=${rootfs}`];
}

/** Waits until Prometheus holds a scrape that started after `afterMs`: the exporter has read the file. Its time (s). */
export async function scrapedAfter(prom: RunningPrometheus, afterMs: number): Promise<number> {
  const [sample] = await prom.waitFor('timestamp(jobio_scrape_collector_success{collector="lustre_jobstats"})', (s) => (s[0]?.value ?? 0) * 1000 > afterMs + 50, 30_000);
  return sample!.value;
}
