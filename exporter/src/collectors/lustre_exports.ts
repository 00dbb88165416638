// Collector `lustre_exports`: per-client load of the Lustre targets on this host, from the export
// stats `{obdfilter,mdt}/<target>/exports/<nid>/stats` (docs/architecture.md "Per-client export stats", lltop's source). It works without
// jobstats; `jobio top --by client` maps the NIDs to hosts and jobs.
//
// Off by default: a big OSS has one export per client per target, thousands of files to open and read
// on every scrape, and thousands of series per target; sites enable it where they want it.
// Metrics: docs/metrics.md; guide: docs/lustre.md.
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag } from '../scrape/flags.js';
import { newSeriesGraceFlag } from '../lustre/new-series-grace.js';
import { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { DEFAULT_WINDOW_MS } from '../lustre/window-clock.js';
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
    // The shipped scrape interval, as lustre_jobstats' density window.
    slotWindowMs: durationFlag(
      'slot-window',
      `${DEFAULT_WINDOW_MS / 1000}s`,
      "Beyond max-clients, free slots are handed out (to the clients with the most requests over the window) and series expire when a window of the exporter's clock ends, the same for every scraper; the increments of clients waiting for a slot show from then (set it to the scrape interval or a multiple).",
    ),
    ...statsFlags('lustre_exports', 'export stats'),
  },
  create({ paths, settings: { maxClients, newSeriesGraceMs, slotWindowMs, ...common }, logger, registry }) {
    const acc = new StatsAccumulator({ maxClients, expiryMs: common.expiryMs, newSeriesGraceMs, windowMs: slotWindowMs });
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
