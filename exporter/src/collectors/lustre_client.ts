// Collector `lustre_client`: the Lustre client's own counters on a compute node, from
// `llite/<instance>/stats` (one file per mounted file system), with the file system and mount point
// from the mount table and the increments credited to the node's job (node-job.ts). The same
// exporter-owned counters as the server collectors (stats-accumulator.ts); a remount resets them.
// Cheap (one small file per mount), so on by default; quiet on hosts without a Lustre client.
// When the mount table has Lustre mounts but no llite stats file is visible (debugfs not mounted or
// not readable), the collector asks `lctl get_param llite.*.stats` instead. Metrics: docs/metrics.md.
import { defineCollector } from '../scrape/define-collector.js';
import { durationFlag, positiveIntegerFlag } from '../scrape/flags.js';
import { ClientStatsBook } from '../lustre/client-book.js';
import { StatsAccumulator } from '../lustre/stats-accumulator.js';
import { DEFAULT_WINDOW_MS } from '../lustre/window-clock.js';
import { statsFlags } from '../lustre/stats-settings.js';
import { statsSteps } from '../lustre/stats-update.js';
import { updateLustre } from '../lustre/update.js';
import { lustreSource } from '../lustre/source-description.js';
import { findCgroupJobs } from '../sources/cgroup-jobs.js';
import { findLliteStatsFiles, readLustreMounts } from '../sources/lustre-client-files.js';
import type { FoundStatsFiles } from '../sources/lustre-stats-files.js';
import { LustreClientMetrics } from './lustre_client_metrics.js';

const NONE_FOUND: FoundStatsFiles = { files: [], unlisted: [] };

export const lustreClientCollector = defineCollector({
  name: 'lustre_client',
  help: "Bytes and operations of this node's Lustre client per mount, from llite.*.stats, credited to the node's job (quiet where there is no Lustre client).",
  defaultEnabled: true,
  flags: {
    // Job series per mount within the expiry (jobs follow each other on a node, so few are needed).
    maxJobs: positiveIntegerFlag('max-jobs', 16, 'Jobs with their own series per mount; the increments of further jobs go to jobid="_other".'),
    ...statsFlags('lustre_client', 'llite stats'),
    // The shipped scrape interval: one window a scrape, the same series for every scraper.
    jobWindowMs: durationFlag(
      'job-window',
      `${DEFAULT_WINDOW_MS / 1000}s`,
      "The window on the exporter's clock over which the client's I/O is credited to the node's job: windows end at multiples of it, the increments of a window are shown from the first scrape after its end, credited to the jobs seen at its two ends, the same for every scraper (set it to the scrape interval or a multiple).",
    ),
  },
  create({ paths, settings, logger, registry }) {
    const book = new ClientStatsBook(new StatsAccumulator({ maxClients: settings.maxJobs, expiryMs: settings.expiryMs, windowMs: settings.jobWindowMs }));
    const metrics = new LustreClientMetrics(registry, settings.maxTargets);
    return {
      async update(signal) {
        const [mounts, found, jobs] = await Promise.all([readLustreMounts(paths), settings.lctl ? Promise.resolve(NONE_FOUND) : findLliteStatsFiles(paths), findCgroupJobs(paths, undefined, signal)]);
        book.prepare(mounts, new Set(jobs.jobs.map((j) => j.jobid)));
        const read = {
          ...settings,
          lctl: settings.lctl || (found.files.length === 0 && mounts.length > 0),
          lctlArgs: ['llite.*.stats'],
          find: () => Promise.resolve(found),
          pick: (p: { kind: string; file: string }) => (p.kind === 'llite' && p.file === 'stats' ? '' : undefined),
        };
        return updateLustre(statsSteps(book, read, paths, logger), book, metrics, signal);
      },
      describe: () => lustreSource('llite stats', settings, ['llite.*.stats'], paths),
    };
  },
});
