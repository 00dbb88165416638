// The one explicit list of collectors. Adding a collector = one file in this folder + one line here.
import type { CollectorDescriptor } from '../scrape/collector.js';
import { processCollector } from './process.js';
import { lustreJobStatsCollector } from './lustre_jobstats.js';
import { profilerCollector } from './profiler.js';
import { cgroupCollector } from './cgroup.js';

export const allCollectors: readonly CollectorDescriptor[] = [processCollector, lustreJobStatsCollector, profilerCollector, cgroupCollector];
