// The one explicit list of collectors. Adding a collector = one file in this folder + one line here.
import type { CollectorDescriptor } from '../scrape/collector.js';
import { processCollector } from './process.js';
import { lustreJobStatsCollector } from './lustre_jobstats.js';
import { profilerCollector } from './profiler.js';
import { lustreExportsCollector } from './lustre_exports.js';
import { lustreStatsCollector } from './lustre_stats.js';
import { lustreClientCollector } from './lustre_client.js';
import { lustreHealthCollector } from './lustre_health.js';
import { lustreLnetCollector } from './lustre_lnet.js';
import { cgroupCollector } from './cgroup.js';
import { gpuCollector } from './gpu.js';
import { jobInfoCollector } from './job_info.js';

export const allCollectors: readonly CollectorDescriptor[] = [
  processCollector,
  lustreJobStatsCollector,
  lustreExportsCollector,
  lustreStatsCollector,
  lustreClientCollector,
  lustreHealthCollector,
  lustreLnetCollector,
  profilerCollector,
  cgroupCollector,
  gpuCollector,
  jobInfoCollector,
];
