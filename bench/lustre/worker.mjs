// @ts-check
// One benchmark case in its own process, so its peak RSS is its own. Prints one JSON line.
// Plain JavaScript on the built exporter (dist/, `npm run build:ts`), as production runs it: a TypeScript
// loader in this process would add ~45 MB of RSS and compile time that the exporter never has.
//   baseline FILE          read the file and split it into lines (the floor any parser pays)
//   collector DIR A B [MAX_JOBS]  the real lustre_jobstats collector on DIR/proc/.../job_stats: first scrape
//                          of A in a cold process; then, as in a running exporter (code compiled by
//                          earlier scrapes), a new collector's first scrape of A (every entry new),
//                          B (every entry grown), B again (idle)
//   readall DIR            every DIR/proc/fs/lustre/obdfilter/*/job_stats read whole, one after another
//   targets DIR MAX [density]  the collector on that many-target tree with max-targets MAX (idle CPU right after
//                          the first scrape, and once it has run a while), the exporter's clock held still; with
//                          `density`, moved one density window a scrape, so every idle scrape renders the rate
//                          density too (a running exporter's steady state)
import { readdir, readFile, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricRegistry } from '../../dist/scrape/metric-registry.js';
import { countSeries } from '../../dist/scrape/series-count.js';
import { renderPartChunks } from '../../dist/scrape/exposition-writer.js';
import { lustreJobStatsCollector } from '../../dist/collectors/lustre_jobstats.js';
import { createLogger } from '../../dist/util/logger.js';

/** @template T @param {() => Promise<T>} fn @returns {Promise<number>} */
async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** @param {string} file */
async function baseline(file) {
  const runs = [];
  let lines = 0;
  for (let i = 0; i < 3; i += 1) {
    runs.push(await timed(async () => (lines = (await readFile(file, 'utf8')).split('\n').length)));
  }
  return { ms: Math.min(...runs), lines };
}

/** @param {string} dir @param {string} first @param {string} grown @param {number | undefined} maxJobs */
async function collector(dir, first, grown, maxJobs) {
  const link = join(dir, 'proc/fs/lustre/obdfilter/bench-OST0000/job_stats');
  /** @param {string} target */
  const point = async (target) => {
    await rm(link, { force: true });
    await symlink(target, link);
  };
  const signal = new AbortController().signal;
  const instance = () => {
    const registry = new MetricRegistry();
    const c = lustreJobStatsCollector.create({
      registry,
      paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
      options: maxJobs === undefined ? { getent: false } : { getent: false, 'max-jobs': maxJobs },
      logger: createLogger('error', 'json'),
    });
    // One scrape as the exporter serves it: update(), then the registry rendered as text.
    let bodyBytes = 0;
    let samples = 0;
    let cpuMs = 0;
    const scrape = async () => {
      const cpu = process.cpuUsage();
      const ms = await timed(async () => (await c.update(signal), measure(await registry.metrics())));
      const used = process.cpuUsage(cpu);
      // CPU time of the scrape: on a shared machine the wall time also counts other processes' turns.
      cpuMs = Math.max(cpuMs, (used.user + used.system) / 1000);
      return ms;
    };
    /** @param {string} body */
    const measure = (body) => {
      bodyBytes = Buffer.byteLength(body);
      // Sample lines, counted without splitting (a split would add 280,000 strings to the peak measured).
      samples = 0;
      for (let at = 0; at < body.length; at = body.indexOf('\n', at) + 1 || body.length) {
        if (body.charCodeAt(at) !== 35 /* # */ && body.charCodeAt(at) !== 10) samples += 1;
      }
    };
    return { scrape, registry, body: () => bodyBytes, cpu: () => cpuMs, series: () => samples };
  };
  await point(first);
  const coldProcessMs = await instance().scrape();
  const fresh = instance();
  const firstMs = await fresh.scrape();
  await point(grown);
  const grownMs = await fresh.scrape();
  const idleMs = await fresh.scrape();
  const series = fresh.series();
  return { coldProcessMs, firstMs, grownMs, idleMs, series, bodyMb: fresh.body() / 1e6, worstCpuMs: fresh.cpu() };
}

/** Every job_stats file of a many-target tree read whole, one after another: the floor of reading them. @param {string} dir */
async function readAll(dir) {
  const root = join(dir, 'proc/fs/lustre/obdfilter');
  const names = await readdir(root);
  const runs = [];
  for (let i = 0; i < 3; i += 1)
    runs.push(
      await timed(async () => {
        for (const n of names) await readFile(join(root, n, 'job_stats'));
      }),
    );
  return { ms: Math.min(...runs), files: names.length };
}

/** The collector on a many-target tree with --collector.lustre_jobstats.max-targets=MAX: first scrape, then three idle ones (best wall time, median CPU). @param {string} dir @param {string} max @param {boolean} density */
async function targets(dir, max, density) {
  // The density's window (30 s by default) closes by the exporter's clock. A clock of our own: held still,
  // no window closes (on the real one, one closed in some runs: then the idle scrapes rendered the density
  // too); with `density`, moved one window a scrape, one closes every scrape whatever the machine's load. It
  // starts a day ahead, so the read deadlines it sets are never passed on the small-files worker's real clock.
  let clock = (Math.ceil(Date.now() / 30_000) + 2880) * 30_000 + 1234;
  Date.now = () => clock;
  const registry = new MetricRegistry();
  const c = lustreJobStatsCollector.create({
    registry,
    paths: { procfs: join(dir, 'proc'), sysfs: join(dir, 'sys'), rootfs: dir },
    options: { getent: false, 'max-targets': Number(max) },
    logger: createLogger('error', 'json'),
  });
  const signal = new AbortController().signal;
  const scrape = () =>
    timed(async () => {
      await c.update(signal);
      // Rendered as a scrape serves it: UTF-8 chunks, never one string.
      await renderPartChunks(registry.list(), 'text');
      if (density) clock += 30_000;
    });
  const firstMs = await scrape();
  // CPU of the process (every thread: the file calls run on libuv's pool), so the machine's other load does not count.
  const cpuOf = async () => {
    const cpu = process.cpuUsage();
    const ms = await scrape();
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000 };
  };
  const idle = [await cpuOf(), await cpuOf(), await cpuOf()];
  const idleMs = Math.min(...idle.map((r) => r.ms));
  const idleCpuMs = idle.map((r) => r.cpuMs).sort((x, y) => x - y)[1];
  const series = await countSeries(registry);
  // The same once the exporter has run a while: the first idle scrapes also pay for the first scrape's
  // garbage (collected on V8's helper threads) and for compiling the idle path. Median of 5 scrapes after 3 more.
  for (let i = 0; i < 3; i += 1) await scrape();
  const later = [];
  for (let i = 0; i < 5; i += 1) later.push((await cpuOf()).cpuMs);
  const steadyIdleCpuMs = later.sort((x, y) => x - y)[2];
  return { firstMs, idleMs, idleCpuMs, steadyIdleCpuMs, series, steadySeries: await countSeries(registry) };
}

const [mode, a = '', b = '', c = '', d] = process.argv.slice(2);
const result =
  mode === 'baseline'
    ? await baseline(a)
    : mode === 'readall'
      ? await readAll(a)
      : mode === 'targets'
        ? await targets(a, b, c === 'density')
        : await collector(a, b, c, d === undefined ? undefined : Number(d));
process.stdout.write(`${JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
