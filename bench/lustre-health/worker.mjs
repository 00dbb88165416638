// @ts-check
// The lustre_health benchmark's scrapes, in their own process on the built exporter (dist/), as
// production runs them. Prints one JSON line: per mode, the times of every scrape in ms.
//   worker.mjs ROOT ROOTFS RUNS FAKE_LCTL
// (FAKE_LCTL prints the dump named by $JOBIO_FAKE_LCTL_FILE, set by the caller.)
// Modes, interleaved run by run so that the machine's noise falls on each alike:
//   jobstats  lustre_jobstats alone (update() + its registry rendered): the exporter's main job
//   both      lustre_jobstats, lustre_health and lustre_lnet, one after the other, as one scrape serves them
//   health    lustre_health alone (files)
//   lnet      lustre_lnet alone (the stats file)
//   lctl      lustre_health through `lctl get_param` on the whole 2.14.0_ddn133 server dump
import { performance } from 'node:perf_hooks';
import { MetricRegistry } from '../../dist/scrape/metric-registry.js';
import { countSeries } from '../../dist/scrape/series-count.js';
import { lustreJobStatsCollector } from '../../dist/collectors/lustre_jobstats.js';
import { lustreHealthCollector } from '../../dist/collectors/lustre_health.js';
import { lustreLnetCollector } from '../../dist/collectors/lustre_lnet.js';
import { createLogger } from '../../dist/util/logger.js';

const [root = '', rootfs = '', runsText = '30', fakeLctl = ''] = process.argv.slice(2);
const runs = Number(runsText);
const signal = new AbortController().signal;
const logger = createLogger('error', 'json');
const paths = { procfs: `${root}/proc`, sysfs: `${root}/sys`, rootfs };

/**
 * @param {import('../../dist/scrape/collector.js').CollectorDescriptor} descriptor
 * @param {Record<string, string | boolean>} [options]
 */
function instance(descriptor, options = {}) {
  const registry = new MetricRegistry();
  const c = descriptor.create({ registry, paths, options, logger });
  return {
    async scrape() {
      const outcome = await c.update(signal);
      if (outcome !== 'ok') throw new Error(`${descriptor.name}: ${outcome}`);
      return registry.metrics();
    },
    series() {
      return countSeries(registry);
    },
  };
}

const jobstats = instance(lustreJobStatsCollector);
const health = instance(lustreHealthCollector);
const lnet = instance(lustreLnetCollector);
const lctl = instance(lustreHealthCollector, { lctl: true, 'lctl-path': fakeLctl });
/** @type {Record<string, () => Promise<unknown>>} */
const modes = {
  jobstats: () => jobstats.scrape(),
  both: async () => {
    await jobstats.scrape();
    await health.scrape();
    await lnet.scrape();
  },
  health: () => health.scrape(),
  lnet: () => lnet.scrape(),
  lctl: () => lctl.scrape(),
};
/** @type {Record<string, number[]>} */
const times = { jobstats: [], both: [], health: [], lnet: [], lctl: [] };
for (const fn of Object.values(modes)) await fn(); // first scrapes: code compiled, every series born
for (let i = 0; i < runs; i += 1) {
  for (const [name, fn] of Object.entries(modes)) {
    const started = performance.now();
    await fn();
    times[name]?.push(performance.now() - started);
  }
}
console.log(JSON.stringify({ times, series: { jobstats: await jobstats.series(), health: await health.series(), lnet: await lnet.series(), lctl: await lctl.series() } }));
