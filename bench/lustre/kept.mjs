// @ts-check
// Memory the lustre_jobstats collector keeps per entry: heap used plus array buffers after a full
// collection, minus the same before the collector, divided by the entries. Run with --expose-gc, one
// tree a process (alternate the trees by hand for a same-run comparison):
//   node --expose-gc bench/lustre/kept.mjs TREE DIR A B ENTRIES
// TREE a built checkout (its dist/ is loaded), DIR a tree with proc/fs/lustre/obdfilter/bench-OST0000/
// (its job_stats is made a link to A, then to B), A and B job_stats files of ENTRIES entries (B with
// every entry grown; bench/lustre/index.ts writeJobStats). The collector runs with max-jobs 100 and a
// density window of 1 h, so every job that has no series waits in the open window: first a scrape of
// A, then B twice (changing, unchanged). Prints one JSON line (B an entry after the first scrape, and
// after all three).
import { rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [tree = '.', dir = '', a = '', b = '', entries = '0'] = process.argv.slice(2);
/** @param {string} module */
const load = (module) => import(pathToFileURL(join(resolve(tree), 'dist', module)).href);
const { MetricRegistry } = await load('scrape/metric-registry.js');
const { lustreJobStatsCollector } = await load('collectors/lustre_jobstats.js');
const { createLogger } = await load('util/logger.js');
const { renderPartChunks } = await load('scrape/exposition-writer.js');

const gc = /** @type {() => void} */ (globalThis.gc);
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');
const link = join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000/job_stats');
/** @param {string} target */
const point = async (target) => {
  await rm(link, { force: true });
  await symlink(target, link);
};
const used = () => {
  for (let i = 0; i < 4; i += 1) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
const signal = new AbortController().signal;
await point(a);
const before = used();
const registry = new MetricRegistry();
const collector = lustreJobStatsCollector.create({
  registry,
  paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
  options: { getent: false, 'max-jobs': 100, 'density-window': '1h' },
  logger: createLogger('error', 'json'),
});
const scrape = async () => {
  await collector.update(signal);
  await renderPartChunks(registry.list(), 'text');
};
await scrape();
const first = (used() - before) / Number(entries);
await point(b);
await scrape();
await scrape();
const all = (used() - before) / Number(entries);
process.stdout.write(`${JSON.stringify({ tree, entries: Number(entries), firstBytes: Math.round(first), keptBytes: Math.round(all) })}\n`);
