// Collector `lustre_exports`: per-client load of the Lustre targets on this host, from the export
// stats `{obdfilter,mdt}/<target>/exports/<nid>/stats` (docs/architecture.md "Per-client export stats", lltop's source). It works without
// jobstats; `jobio top --by client` maps the NIDs to hosts and jobs.
//
// Off by default: a big OSS has one export per client per target, thousands of files to open and read
// on every scrape, and thousands of series per target; sites enable it where they want it.
// Metrics: docs/metrics.md; guide: docs/lustre.md.
import { defineCollector } from '../scrape/define-collector.js';
import { positiveIntegerFlag } from '../scrape/flags.js';
import { newSeriesGraceFlag } from '../lustre/new-series-grace.js';
import { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { statsFlags } from '../lustre/stats-settings.js';
import { statsUpdater } from '../lustre/stats-update.js';
import { findExportStatsFiles } from '../sources/lustre-stats-files.js';
import { LustreExportsMetrics } from './lustre_exports_metrics.js';

export const lustreExportsCollector = defineCollector({
  name: 'lustre_exports',
  help: 'Per-client (NID) I/O of the Lustre MDTs and OSTs on this host, from exports/*/stats (off by default: thousands of files on a big server).',
  defaultEnabled: false,
  flags: {
    maxClients: positiveIntegerFlag('max-clients', 1000, 'Clients with their own series per target; the increments of the others go to client="_other".'),
    newSeriesGraceMs: newSeriesGraceFlag('client'),
    ...statsFlags('lustre_exports', 'export stats'),
  },
  create({ paths, settings: { maxClients, newSeriesGraceMs, ...common }, logger, registry }) {
    const acc = new StatsAccumulator({ maxClients, expiryMs: common.expiryMs, newSeriesGraceMs });
    const metrics = new LustreExportsMetrics(registry, maxClients, common.maxTargets);
    const settings = {
      ...common,
      lctlArgs: ['obdfilter.*.exports.*.stats', 'mdt.*.exports.*.stats'],
      find: findExportStatsFiles,
      pick: (p: { nid?: string }) => p.nid,
    };
    return statsUpdater(acc, settings, metrics, paths, logger);
  },
});
