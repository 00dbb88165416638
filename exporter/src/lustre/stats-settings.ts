// Flags and settings shared by the lustre_exports and lustre_stats collectors (the lctl mode and the
// series expiry work as for lustre_jobstats).
import type { CollectorFlag, CollectorOptions } from '../scrape/collector.js';
import { positiveDuration, positiveInteger } from '../scrape/flag-values.js';

/** As for lustre_jobstats: a big server has tens of targets. */
export const DEFAULT_MAX_TARGETS = 256;
import { optionReader } from '../scrape/option-reader.js';

export function statsFlags(collector: string, what: string): CollectorFlag[] {
  return [
    { name: 'expiry', help: `A series whose ${what} file is gone is removed after this long.`, default: '30m', parse: positiveDuration },
    { name: 'lctl', help: `Read the ${what} files through \`lctl get_param\` instead of the files under --path.procfs/--path.sysfs.`, default: false },
    { name: 'lctl-path', help: `The lctl program for --collector.${collector}.lctl.`, default: 'lctl' },
    { name: 'lctl-timeout', help: 'Deadline of one lctl get_param run.', default: '10s', parse: positiveDuration },
    { name: 'max-targets', help: `Targets read per scrape (the first found, then sticky while they have series); further targets are not read (counted in jobio_lustre_${collector === 'lustre_stats' ? 'target' : 'export'}_targets_dropped).`, default: DEFAULT_MAX_TARGETS, parse: positiveInteger },
  ];
}

export interface StatsCommonSettings {
  readonly expiryMs: number;
  readonly lctl: boolean;
  readonly lctlPath: string;
  readonly lctlTimeoutMs: number;
  readonly maxTargets: number;
}

/** Options arrive parsed by the flags' parsers; defaults apply when a test passes none. */
export function readStatsSettings(options: CollectorOptions): StatsCommonSettings {
  const { text, bool, duration, num } = optionReader(options);
  return {
    expiryMs: duration('expiry', '30m'),
    lctl: bool('lctl', false),
    lctlPath: text('lctl-path', 'lctl'),
    lctlTimeoutMs: duration('lctl-timeout', '10s'),
    maxTargets: num('max-targets', DEFAULT_MAX_TARGETS),
  };
}
