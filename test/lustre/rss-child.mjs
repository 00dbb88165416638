// @ts-check
// Runs the built lustre_jobstats collector (dist/) on DIR for two scrapes in this process and prints
// one JSON line: its peak RSS (process.resourceUsage().maxRSS, KB) and the exposition. Its own process,
// so the peak is the collector's; plain JavaScript so no TypeScript loader adds to it.
//   node rss-child.mjs DIR MAX_ENTRIES
import { join } from 'node:path';
import { MetricRegistry } from '../../dist/scrape/metric-registry.js';
import { lustreJobStatsCollector } from '../../dist/collectors/lustre_jobstats.js';
import { createLogger } from '../../dist/util/logger.js';

const [dir = '', maxEntries = '1000'] = process.argv.slice(2);
const registry = new MetricRegistry();
const collector = lustreJobStatsCollector.create({
  registry,
  paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
  options: { getent: false, 'max-entries': Number(maxEntries) },
  logger: createLogger('error', 'json'),
});
const outcomes = [];
for (let i = 0; i < 2; i += 1) outcomes.push(await collector.update(new AbortController().signal));
console.log(JSON.stringify({ outcomes, maxRssKb: process.resourceUsage().maxRSS, metrics: await registry.metrics() }));
