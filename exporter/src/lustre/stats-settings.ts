// Flags and settings shared by the lustre_exports and lustre_stats collectors (the lctl mode and the
// series expiry work as for lustre_jobstats).
import type { CollectorFlag, CollectorOptions } from '../scrape/collector.js';
import { positiveDuration } from '../scrape/flag-values.js';
import { optionReader } from '../scrape/option-reader.js';

export function statsFlags(collector: string, what: string): CollectorFlag[] {
  return [
    { name: 'expiry', help: `A series whose ${what} file is gone is removed after this long.`, default: '30m', parse: positiveDuration },
    { name: 'lctl', help: `Read the ${what} files through \`lctl get_param\` instead of the files under --path.procfs/--path.sysfs.`, default: false },
    { name: 'lctl-path', help: `The lctl program for --collector.${collector}.lctl.`, default: 'lctl' },
    { name: 'lctl-timeout', help: 'Deadline of one lctl get_param run.', default: '10s', parse: positiveDuration },
  ];
}

export interface StatsCommonSettings {
  readonly expiryMs: number;
  readonly lctl: boolean;
  readonly lctlPath: string;
  readonly lctlTimeoutMs: number;
}

/** Options arrive parsed by the flags' parsers; defaults apply when a test passes none. */
export function readStatsSettings(options: CollectorOptions): StatsCommonSettings {
  const { text, bool, duration } = optionReader(options);
  return {
    expiryMs: duration('expiry', '30m'),
    lctl: bool('lctl', false),
    lctlPath: text('lctl-path', 'lctl'),
    lctlTimeoutMs: duration('lctl-timeout', '10s'),
  };
}
