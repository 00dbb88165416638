// Flags and settings shared by the collectors of plain Lustre stats files (lustre_exports,
// lustre_stats, lustre_client): the lctl mode and the series expiry work as for lustre_jobstats.
import { durationFlag, positiveIntegerFlag, type SettingsOf } from '../scrape/flags.js';
import { lctlFlags } from './lctl-flags.js';

/** As for lustre_jobstats: a big server has tens of targets. */
export const DEFAULT_MAX_TARGETS = 256;

/** The prefix of each collector's metrics, for the name of its targets-dropped gauge in the help. */
const METRIC_PREFIX: Readonly<Record<string, string>> = { lustre_stats: 'jobio_lustre_target', lustre_exports: 'jobio_lustre_export', lustre_client: 'jobio_lustre_client' };

export function statsFlags(collector: string, what: string) {
  return {
    expiryMs: durationFlag('expiry', '30m', `A series whose ${what} file is gone is removed after this long.`),
    ...lctlFlags(collector, `the ${what} files`),
    maxTargets: positiveIntegerFlag(
      'max-targets',
      DEFAULT_MAX_TARGETS,
      `Targets read per scrape (the first found, then sticky while they have series); further targets are not read (counted in ${METRIC_PREFIX[collector] ?? 'jobio_lustre'}_targets_dropped).`,
    ),
  };
}

export type StatsCommonSettings = SettingsOf<ReturnType<typeof statsFlags>>;
