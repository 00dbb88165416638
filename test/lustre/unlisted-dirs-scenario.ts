// Run by unlisted-dirs.test.ts with the tree in argv[2]; with a uid in argv[3] (the tests run as root,
// who lists any directory whatever its mode) it becomes that user, the tree's owner, once its modules
// are loaded (so the checkout need not be readable by that user). Then four scrapes of the lustre_jobstats and lustre_exports collectors while
// a target's directory, then the obdfilter/ directory above the targets, cannot be listed. Prints the
// update outcomes and the expositions as JSON.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import { lustreExportsCollector } from '../../exporter/src/collectors/lustre_exports.js';
import { lustreJobStatsCollector } from '../../exporter/src/collectors/lustre_jobstats.js';
import { createLogger } from '../../exporter/src/util/logger.js';

const root = process.argv[2] ?? '';
const dropTo = process.argv[3];
if (dropTo !== undefined) {
  process.setgid?.(Number(dropTo));
  process.setuid?.(Number(dropTo));
}
const obdfilter = join(root, 'proc/fs/lustre/obdfilter');
const entry = (bytes: number): string => `job_stats:\n- job_id:          9:5000:n1\n  write_bytes:     { samples:           1, unit: bytes, min: 1, max: 1, sum: ${bytes} }\n`;
const exportStats = (bytes: number): string => `snapshot_time             1700000000.000000001 secs.nsecs\nwrite_bytes               1 samples [bytes] ${bytes} ${bytes} ${bytes}\n`;

function put(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

put(join(obdfilter, 'fs-OST0000/job_stats'), entry(100));
put(join(obdfilter, 'fs-OST0000/exports/10.0.0.1@tcp/stats'), exportStats(4096));
put(join(obdfilter, 'fs-OST0001/job_stats'), entry(7));

const paths = { procfs: join(root, 'proc'), sysfs: join(root, 'sys'), rootfs: root };
const logger = createLogger('error', 'json');
// Each collector is given only options it declares (lustre_exports has no user label, so no getent).
const collectors = (
  [
    [lustreJobStatsCollector, { getent: false }],
    [lustreExportsCollector, {}],
  ] as const
).map(([descriptor, options]) => {
  const registry = new MetricRegistry();
  return { registry, collector: descriptor.create({ registry, paths, options, logger }) };
});

async function scrapeAll(): Promise<{ outcomes: string[]; text: string }> {
  const outcomes: string[] = [];
  let text = '';
  for (const { registry, collector } of collectors) {
    outcomes.push(await collector.update(new AbortController().signal).catch((err: unknown) => `failed: ${String(err)}`));
    text += await registry.metrics();
  }
  return { outcomes, text };
}

const scrapes = [await scrapeAll()];
chmodSync(join(obdfilter, 'fs-OST0001'), 0);
scrapes.push(await scrapeAll());
chmodSync(obdfilter, 0);
scrapes.push(await scrapeAll());
chmodSync(obdfilter, 0o755);
chmodSync(join(obdfilter, 'fs-OST0001'), 0o755);
writeFileSync(join(obdfilter, 'fs-OST0000/job_stats'), entry(150));
writeFileSync(join(obdfilter, 'fs-OST0000/exports/10.0.0.1@tcp/stats'), exportStats(8192));
scrapes.push(await scrapeAll());
process.stdout.write(JSON.stringify(scrapes));
