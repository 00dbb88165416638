// Collector `lustre_stats`: total load of each Lustre target on this host, from
// `obdfilter/<target>/stats` (OSTs) and `mdt/<target>/md_stats` (MDTs). One file per target, so it is
// cheap and on by default; quiet on hosts without Lustre targets. Metrics: docs/metrics.md.
import { defineCollector } from '../scrape/define-collector.js';
import { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { statsFlags } from '../lustre/stats-settings.js';
import { statsUpdater } from '../lustre/stats-update.js';
import { findTargetStatsFiles } from '../sources/lustre-stats-files.js';
import { LustreStatsMetrics } from './lustre_stats_metrics.js';

export const lustreStatsCollector = defineCollector({
  name: 'lustre_stats',
  help: 'Total requests and bytes of the Lustre MDTs and OSTs on this host, from obdfilter.*.stats and mdt.*.md_stats (quiet where there are none).',
  defaultEnabled: true,
  flags: statsFlags('lustre_stats', 'target stats'),
  create({ paths, settings: common, logger, registry }) {
    // One series per target: the client slot is unused ('').
    const acc = new StatsAccumulator({ maxClients: 1, expiryMs: common.expiryMs });
    const metrics = new LustreStatsMetrics(registry, common.maxTargets);
    const settings = {
      ...common,
      lctlArgs: ['obdfilter.*.stats', 'mdt.*.md_stats'],
      find: findTargetStatsFiles,
      pick: (p: { kind: string; nid?: string; file: string }) =>
        p.nid === undefined && ((p.kind === 'obdfilter' && p.file === 'stats') || (p.kind === 'mdt' && p.file === 'md_stats')) ? '' : undefined,
    };
    return statsUpdater(acc, settings, metrics, paths, logger);
  },
});
