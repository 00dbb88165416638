// Flags and settings shared by the collectors of plain Lustre stats files (lustre_exports,
// lustre_stats, lustre_client): the lctl mode and the series expiry work as for lustre_jobstats.
import { durationFlag, positiveIntegerFlag, type SettingsOf } from '../scrape/flags.js';
import { lctlFlags } from './lctl-flags.js';

/** As for lustre_jobstats: a big server has tens of targets. */
export const DEFAULT_MAX_TARGETS = 256;

export function statsFlags(collector: string, what: string) {
  return {
    expiryMs: durationFlag('expiry', '30m', `A series whose ${what} file is gone is removed after this long.`),
    ...lctlFlags(collector, `the ${what} files`),
    maxTargets: positiveIntegerFlag(
      'max-targets',
      DEFAULT_MAX_TARGETS,
      `Targets read per scrape (the first found, then sticky while they have series); further targets are not read (counted in jobio_lustre_${collector === 'lustre_stats' ? 'target' : 'export'}_targets_dropped).`,
    ),
  };
}

export type StatsCommonSettings = SettingsOf<ReturnType<typeof statsFlags>>;
