// @ts-check
// One run of a running exporter's changing scrapes against the read+split floor, in one process; prints
// one JSON line. Driven by running.ts (which writes the files); plain JavaScript on a built tree (dist/ and
// the addon beside it), so two builds of the exporter can be measured alternately.
//   node bench/lustre/running-worker.mjs DIR A B [TREE]
// DIR: a scratch directory (its proc/ and sys/ are made here); A, B: job_stats files, B with every entry of
// A grown; TREE: the checkout whose dist/ is measured (default: this one).
// One collector scrapes A, then 8 times B and A again: the CPU time (process.cpuUsage(), every thread) of
// the 8 scrapes of B, each update() and the registry's render, as a running exporter pays them. The floor:
// B read as text and split into lines, best of 5, in the same process after the scrapes (and its user
// CPU alone, best of the 5).
import { mkdir, readFile, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [dir = '', a = '', b = '', treeArg] = process.argv.slice(2);
if (dir === '' || a === '' || b === '') throw new Error('usage: running-worker.mjs DIR A B [TREE]');
const tree = treeArg === undefined ? fileURLToPath(new URL('../../', import.meta.url)) : resolve(treeArg);
/** @param {string} path */
const load = (path) => import(pathToFileURL(join(tree, 'dist', path)).href);
const { MetricRegistry } = await load('scrape/metric-registry.js');
const { lustreJobStatsCollector } = await load('collectors/lustre_jobstats.js');
const { createLogger } = await load('util/logger.js');

/** @param {() => Promise<unknown>} fn @returns {Promise<number>} CPU ms of every thread */
async function cpu(fn) {
  const started = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const target = join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000');
const link = join(target, 'job_stats');
await mkdir(target, { recursive: true });
await mkdir(join(dir, 'sys'), { recursive: true });
/** @param {string} file */
const point = async (file) => {
  await rm(link, { force: true });
  await symlink(file, link);
};
const registry = new MetricRegistry();
const collector = lustreJobStatsCollector.create({
  registry,
  paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
  options: { getent: false },
  logger: createLogger('error', 'json'),
});
const signal = new AbortController().signal;
const scrape = () =>
  cpu(async () => {
    await collector.update(signal);
    await registry.metrics();
  });

const changing = [];
await point(a);
await scrape();
for (let i = 0; i < 8; i += 1) {
  await point(b);
  changing.push(await scrape());
  await point(a);
  await scrape();
}
// The floor's user CPU apart: on a machine where page faults are dear (a KVM guest), a fresh 46 MB
// buffer and string a read cost more system time than the reading and splitting itself.
const floors = [];
const floorsUser = [];
let floorLines = 0;
for (let i = 0; i < 5; i += 1) {
  const started = process.cpuUsage();
  floorLines += (await readFile(b, 'utf8')).split('\n').length;
  const used = process.cpuUsage(started);
  floors.push((used.user + used.system) / 1000);
  floorsUser.push(used.user / 1000);
}
if (floorLines === 0) throw new Error(`${b} read as no lines`);
changing.sort((x, y) => x - y);
const floorMs = Math.min(...floors);
const floorUserMs = Math.min(...floorsUser);
const bestMs = changing[0] ?? NaN;
const medianMs = ((changing[3] ?? NaN) + (changing[4] ?? NaN)) / 2;
const round = (/** @type {number} */ v) => Math.round(v * 100) / 100;
process.stdout.write(
  `${JSON.stringify({ tree, floorMs: round(floorMs), bestMs: round(bestMs), medianMs: round(medianMs), bestOverFloor: round(bestMs / floorMs), medianOverFloor: round(medianMs / floorMs), floorUserMs: round(floorUserMs), medianOverFloorUser: round(medianMs / floorUserMs) })}\n`,
);
