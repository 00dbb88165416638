// @ts-check
// One case of bench/collectors in its own process, so its peak RSS is its own. Prints one JSON line:
// { firstMs, runsMs: [...], maxRssMb, ... }. Plain JavaScript on the built exporter (dist/), as
// production runs it (no TypeScript loader in this process: see bench/lustre/worker.mjs).
//   files LIST RUNS                    baseline: readFile + split("\n") of every path in LIST (JSON array)
//   stats NAME ROOT GENS IDLE          lustre_exports / lustre_stats on ROOT/proc, a symlink switched to
//                                      ROOT/gen<i>/proc: gen0 (first scrape), gen1.. (every file grown),
//                                      then IDLE scrapes of the last generation (nothing changed)
//   cgroup SYSFS ROOTFS RUNS           the cgroup collector on a generated v1 tree
//   nvml LIB PROCFS RUNS               baselines: the addon's own sample() calls, no collector; and
//                                      sample() + the /proc reads the collector needs for its pids
//                                      (stat of /proc/<pid>, readFile of environ), without the collector
//   gpu LIB PROCFS ROOTFS RUNS         the gpu collector on the fake NVML (config: JOBIO_FAKE_NVML_CONFIG)
//   lines FILE RUNS                    baseline: split the exposition text into lines
//   expo FILE MODE RUNS                `jobio top`'s parseExposition; MODE client (the families of
//                                      `--by client`, as ExporterSource asks) or all (every sample)
import { readFile, rm, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { MetricRegistry } from '../../dist/scrape/metric-registry.js';
import { lustreExportsCollector } from '../../dist/collectors/lustre_exports.js';
import { lustreStatsCollector } from '../../dist/collectors/lustre_stats.js';
import { cgroupCollector } from '../../dist/collectors/cgroup.js';
import { gpuCollector } from '../../dist/collectors/gpu.js';
import { loadNvmlAddon } from '../../dist/gpu/nvml-addon.js';
import { parseExposition } from '../../dist/top/exposition.js';
import { FAMILIES } from '../../dist/top/increments.js';
import { createLogger } from '../../dist/util/logger.js';

/** @param {() => Promise<unknown> | unknown} fn @returns {Promise<number>} */
async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** @param {number} n @param {() => Promise<unknown> | unknown} fn */
async function repeat(n, fn) {
  const runs = [];
  for (let i = 0; i < n; i += 1) runs.push(await timed(fn));
  return runs;
}

const signal = new AbortController().signal;
const logger = createLogger('error', 'json');

/**
 * A collector and its registry; scrape() is one scrape as the exporter serves it: update(), then the
 * registry rendered as text.
 * @param {import('../../dist/scrape/collector.js').CollectorDescriptor} descriptor
 * @param {{procfs: string, sysfs: string, rootfs: string}} paths
 * @param {Record<string, unknown>} options
 */
function instance(descriptor, paths, options) {
  const registry = new MetricRegistry();
  const c = descriptor.create({ registry, paths, options: /** @type {any} */ (options), logger });
  /** @type {unknown} */
  let status;
  const scrape = () =>
    timed(async () => {
      status = await c.update(signal);
      await registry.metrics();
    });
  /** Series in the registry, and the sum of each named gauge's values. */
  const count = async () => {
    /** @type {{name: string, values: {value: number, labels: Readonly<Record<string, string | number>>}[]}[]} */
    const families = [];
    for (const f of registry.list()) {
      /** @type {{value: number, labels: Readonly<Record<string, string | number>>}[]} */
      const values = [];
      await f.collect({ sample: (labels, value) => values.push({ labels, value }), rendered: (_text, value) => values.push({ labels: {}, value }) });
      families.push({ name: f.name, values });
    }
    /** @type {Record<string, number>} */
    const sums = {};
    let series = 0;
    for (const f of families) {
      series += f.values?.length ?? 0;
      sums[f.name] = (f.values ?? []).reduce((n, v) => n + v.value, 0);
    }
    return { series, sums, families };
  };
  return { scrape, count, collector: c, status: () => status };
}

/** @param {string} list @param {number} runs */
async function files(list, runs) {
  const paths = /** @type {string[]} */ (JSON.parse(await readFile(list, 'utf8')));
  let lines = 0;
  const read = async () => {
    lines = 0;
    for (const p of paths) lines += (await readFile(p, 'utf8')).split('\n').length;
  };
  const firstMs = await timed(read);
  return { firstMs, runsMs: await repeat(runs, read), files: paths.length, lines };
}

/** @param {string} name @param {string} root @param {number} gens @param {number} idle */
async function stats(name, root, gens, idle) {
  const link = join(root, 'proc');
  /** @param {number} g */
  const point = async (g) => {
    await rm(link, { force: true });
    await symlink(join(root, `gen${g}`, 'proc'), link);
  };
  const descriptor = name === 'lustre_exports' ? lustreExportsCollector : lustreStatsCollector;
  const c = instance(descriptor, { procfs: link, sysfs: join(root, 'no-sys'), rootfs: root }, {});
  await point(0);
  const firstMs = await c.scrape();
  const runsMs = [];
  for (let g = 1; g < gens; g += 1) {
    await point(g);
    runsMs.push(await c.scrape());
  }
  // Counted after the last grown scrape: the folded-clients gauge counts the clients whose
  // increments went to client="_other" in the last scrape (none in an idle one).
  const { series, sums, families } = await c.count();
  const idleMs = [];
  for (let i = 0; i < idle; i += 1) idleMs.push(await c.scrape());
  const other = families.flatMap((f) => f.values ?? []).filter((v) => v.labels.client === '_other').length;
  return {
    firstMs,
    runsMs,
    idleMs,
    status: c.status(),
    series,
    otherSeries: other,
    clients: sums.jobio_lustre_export_clients ?? 0,
    foldedClients: sums.jobio_lustre_export_folded_clients ?? 0,
  };
}

/** @param {string} sysfs @param {string} rootfs @param {number} runs */
async function cgroup(sysfs, rootfs, runs) {
  const c = instance(cgroupCollector, { procfs: join(sysfs, 'no-proc'), sysfs, rootfs }, { getent: false });
  const firstMs = await c.scrape();
  const runsMs = [];
  for (let i = 0; i < runs; i += 1) runsMs.push(await c.scrape());
  const { series, sums } = await c.count();
  return { firstMs, runsMs, status: c.status(), series, jobs: sums.jobio_cgroup_jobs ?? 0, foldedJobs: sums.jobio_cgroup_folded_jobs ?? 0 };
}

/** @param {string} library @param {string} procfs @param {number} runs */
async function nvml(library, procfs, runs) {
  const nvml = new (loadNvmlAddon().Nvml)(library);
  /** @type {import('../../dist/gpu/nvml-addon.js').NvmlSample | undefined} */
  let last;
  const initMs = await timed(async () => {
    const init = await nvml.init();
    if (init.status !== 'ok') throw new Error(`fake NVML init: ${init.status}`);
  });
  const sample = async () => (last = await nvml.sample({ pcie: true, processes: true }));
  const firstMs = await timed(sample);
  const runsMs = await repeat(runs, sample);
  const withProc = async () => {
    const s = await sample();
    for (const d of s.devices) {
      for (const pid of d.pids ?? []) {
        await stat(join(procfs, String(pid)));
        await readFile(join(procfs, String(pid), 'environ'), 'latin1');
      }
    }
  };
  await withProc();
  const procRunsMs = await repeat(runs, withProc);
  await nvml.shutdown();
  return { initMs, firstMs, runsMs, procRunsMs, devices: last?.devices.length ?? 0, pids: last?.devices.reduce((n, d) => n + (d.pids?.length ?? 0), 0) ?? 0 };
}

/** @param {string} library @param {string} procfs @param {string} rootfs @param {number} runs */
async function gpu(library, procfs, rootfs, runs) {
  const c = instance(gpuCollector, { procfs, sysfs: join(procfs, 'no-sys'), rootfs }, { 'nvml-library': library, getent: false });
  const firstMs = await c.scrape(); // includes dlopen + nvmlInit_v2
  const runsMs = [];
  for (let i = 0; i < runs; i += 1) runsMs.push(await c.scrape());
  const { series, sums } = await c.count();
  await c.collector.close?.();
  return { firstMs, runsMs, status: c.status(), series, jobInfo: sums.jobio_gpu_job_info ?? 0 };
}

/** @param {string} file @param {number} runs */
async function lines(file, runs) {
  const text = await readFile(file, 'utf8');
  let n = 0;
  const firstMs = await timed(() => (n = text.split('\n').length));
  return { firstMs, runsMs: await repeat(runs, () => (n = text.split('\n').length)), lines: n };
}

/** @param {string} file @param {string} mode @param {number} runs */
async function expo(file, mode, runs) {
  const text = await readFile(file, 'utf8');
  const families = new Set(Object.values(FAMILIES.client));
  /** @type {((name: string) => boolean) | undefined} */
  const wanted = mode === 'client' ? (name) => families.has(/** @type {any} */ (name)) : undefined;
  let result = parseExposition('', wanted);
  const firstMs = await timed(() => (result = parseExposition(text, wanted)));
  const runsMs = await repeat(runs, () => (result = parseExposition(text, wanted)));
  return { firstMs, runsMs, samples: result.samples.length, badLines: result.badLines };
}

const [mode = '', ...a] = process.argv.slice(2);
const arg = (/** @type {number} */ i) => a[i] ?? '';
const num = (/** @type {number} */ i) => Number(a[i] ?? NaN);
/** @type {Record<string, () => Promise<object>>} */
const modes = {
  files: () => files(arg(0), num(1)),
  stats: () => stats(arg(0), arg(1), num(2), num(3)),
  cgroup: () => cgroup(arg(0), arg(1), num(2)),
  nvml: () => nvml(arg(0), arg(1), num(2)),
  gpu: () => gpu(arg(0), arg(1), arg(2), num(3)),
  lines: () => lines(arg(0), num(1)),
  expo: () => expo(arg(0), arg(1), num(2)),
};
const fn = modes[mode];
if (!fn) throw new Error(`unknown mode ${mode}`);
const result = await fn();
process.stdout.write(`${JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
