// One scrape of plain stats files into a StatsAccumulator, shared by the lustre_exports and
// lustre_stats collectors: from the pseudo-files, or from one `lctl get_param` run whose dump holds
// many files (`param=` headers name the target and client of each).
import type { Collector } from '../scrape/collector.js';
import type { Logger } from '../util/logger.js';
import type { Paths } from '../util/paths.js';
import { parseLustreStats, parseStatsParam, type StatsParam, type StatsSection } from '../parsers/lustre-stats.js';
import { readStatsFiles, type FoundStatsFiles } from '../sources/lustre-stats-files.js';
import { runLctl } from '../sources/lustre-lctl.js';
import type { LustreWriter } from './refill.js';
import type { StatsAccumulator } from './stats-accumulator.js';
import { failUnlisted, updateLustre, type UpdateSteps } from './update.js';
import { lustreSource } from './source-description.js';
import { readErrorReason } from './error-reasons.js';

/** What statsSteps() feeds: a StatsAccumulator, or a wrapper that renames targets (lustre_client). */
export type StatsSink = Pick<StatsAccumulator, 'begin' | 'ingest' | 'markFailed' | 'finish' | 'targetCount' | 'has' | 'droppedTargets' | 'unreadableDirsTotal'>;

export interface StatsUpdateSettings {
  readonly lctl: boolean;
  readonly lctlPath: string;
  readonly lctlTimeoutMs: number;
  /** Targets read per scrape; others are skipped and counted in acc.droppedTargets. */
  readonly maxTargets: number;
  /** lctl patterns, e.g. `obdfilter.*.exports.*.stats`. */
  readonly lctlArgs: readonly string[];
  /** Finds the files when reading the pseudo-files. */
  readonly find: (paths: Paths) => Promise<FoundStatsFiles>;
  /** Which lctl sections belong to this collector; returns the client ('' for a target's totals). */
  readonly pick: (param: StatsParam) => string | undefined;
}

/** The steps of one scrape of a stats collector (lustre/update.ts runs them). */
export function statsSteps(acc: StatsSink, settings: StatsUpdateSettings, paths: Paths, logger: Logger): UpdateSteps {
  let admit = targetAdmission(acc, settings.maxTargets);
  return {
    begin() {
      acc.begin();
      admit = targetAdmission(acc, settings.maxTargets);
    },
    async read(signal) {
      if (settings.lctl) {
        let found = false;
        const result = await runLctl(settings.lctlPath, settings.lctlTimeoutMs, signal, ['get_param', ...settings.lctlArgs]);
        for (const section of result.absent ? [] : parseLustreStats(result.stdout)) {
          const param = section.param === undefined ? undefined : parseStatsParam(section.param);
          const client = param === undefined ? undefined : settings.pick(param);
          if (param === undefined || client === undefined) continue; // another parameter of the dump
          found = true;
          if (admit(param.target)) acc.ingest(param.target, client, section);
        }
        return { found, complete: true };
      }
      const { files: present, unlisted } = await settings.find(paths);
      acc.unreadableDirsTotal += unlisted.length;
      const complete = failUnlisted(unlisted, logger, ({ target }) => {
        if (admit(target)) acc.markFailed(target);
      });
      const files = present.filter((file) => admit(file.target));
      for await (const read of readStatsFiles(files, signal)) {
        if ('error' in read) {
          const reason = readErrorReason(read.error);
          acc.markFailed(read.target, read.client, reason);
          logger.warn({ path: read.path, reason, err: read.error.message }, 'cannot read Lustre stats file: skipped, its series kept');
          continue;
        }
        const [section] = parseLustreStats(read.data);
        // An empty file (every counter at zero is omitted) is a present file without counters.
        acc.ingest(read.target, read.client, section ?? emptySection());
      }
      return { found: present.length > 0, complete };
    },
    finish(complete) {
      acc.droppedTargets = admit.dropped.size;
      if (acc.droppedTargets > 0) logger.debug({ dropped: acc.droppedTargets, maxTargets: settings.maxTargets }, 'more Lustre targets than max-targets: the others are not read');
      acc.finish(Date.now(), complete);
    },
  };
}

/**
 * Which targets one scrape reads: those already known (sticky, like client slots), then new ones in
 * the order found while fewer than maxTargets are taken. Refused ones are collected in `dropped`.
 */
function targetAdmission(acc: StatsSink, maxTargets: number): ((target: string) => boolean) & { dropped: Set<string> } {
  const taken = new Set<string>();
  const dropped = new Set<string>();
  let takenNew = 0;
  const admit = (target: string): boolean => {
    if (taken.has(target)) return true;
    const known = acc.has(target);
    if (known || acc.targetCount + takenNew < maxTargets) {
      taken.add(target);
      if (!known) takenNew += 1;
      return true;
    }
    dropped.add(target);
    return false;
  };
  return Object.assign(admit, { dropped });
}

/** The update() of the lustre_exports and lustre_stats collectors. */
export function statsUpdater(acc: StatsAccumulator, settings: StatsUpdateSettings, metrics: LustreWriter<StatsAccumulator>, paths: Paths, logger: Logger): Collector {
  const steps = statsSteps(acc, settings, paths, logger);
  return { update: (signal) => updateLustre(steps, acc, metrics, signal), describe: () => lustreSource(settings.lctlArgs.join(', '), settings, settings.lctlArgs, paths) };
}

/** What parseLustreStats makes of `snapshot_time 0 secs.nsecs`: a section without counters. */
function emptySection(): StatsSection {
  return { param: undefined, snapshotTime: 0, snapshotUnit: 'secs.nsecs', startTime: undefined, elapsedTime: NaN, counters: [], badLines: 0, duplicates: 0 };
}
