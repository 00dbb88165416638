// Collector `lustre_exports`: per-client load of the Lustre targets on this host, from the export
// stats `{obdfilter,mdt}/<target>/exports/<nid>/stats` (docs/architecture.md "Per-client export stats", lltop's source). It works without
// jobstats; `jobio top --by client` maps the NIDs to hosts and jobs.
//
// Off by default: a big OSS has one export per client per target, thousands of files to open and read
// on every scrape, and thousands of series per target; sites enable it where they want it.
// Metrics: docs/metrics.md; guide: docs/lustre.md.
import { optionReader } from '../scrape/option-reader.js';
import type { CollectorDescriptor } from '../scrape/collector.js';
import { positiveInteger } from '../scrape/flag-values.js';
import { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { readStatsSettings, statsFlags } from '../lustre/stats-settings.js';
import { statsUpdater } from '../lustre/stats-update.js';
import { findExportStatsFiles } from '../sources/lustre-stats-files.js';
import { LustreExportsMetrics } from './lustre_exports_metrics.js';

export const DEFAULT_MAX_CLIENTS = 1000;

export const lustreExportsCollector: CollectorDescriptor = {
  name: 'lustre_exports',
  help: 'Per-client (NID) I/O of the Lustre MDTs and OSTs on this host, from exports/*/stats (off by default: thousands of files on a big server).',
  defaultEnabled: false,
  flags: [
    { name: 'max-clients', help: 'Clients with their own series per target; the increments of the others go to client="_other".', default: DEFAULT_MAX_CLIENTS, parse: positiveInteger },
    ...statsFlags('lustre_exports', 'export stats'),
  ],
  create({ paths, options, logger, registry }) {
    const common = readStatsSettings(options);
    const maxClients = optionReader(options).num('max-clients', DEFAULT_MAX_CLIENTS);
    const acc = new StatsAccumulator({ maxClients, expiryMs: common.expiryMs });
    const metrics = new LustreExportsMetrics(registry, maxClients, common.maxTargets);
    const settings = {
      ...common,
      lctlArgs: ['obdfilter.*.exports.*.stats', 'mdt.*.exports.*.stats'],
      find: findExportStatsFiles,
      pick: (p: { nid?: string }) => p.nid,
    };
    return statsUpdater(acc, settings, metrics, paths, logger);
  },
};
