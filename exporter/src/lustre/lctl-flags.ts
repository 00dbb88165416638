// The flags of every Lustre collector that can read its files through `lctl get_param` instead of
// the pseudo-files (lustre_jobstats, lustre_exports, lustre_stats, lustre_client), declared once.
import { durationFlag, switchFlag, textFlag } from '../scrape/flags.js';

/** `source` names what is read, as the help says it: `job_stats`, `the export stats files`. */
export function lctlFlags(collector: string, source: string) {
  return {
    lctl: switchFlag('lctl', false, `Read ${source} through \`lctl get_param\` instead of the files under --path.procfs/--path.sysfs.`),
    lctlPath: textFlag('lctl-path', 'lctl', `The lctl program for --collector.${collector}.lctl.`),
    lctlTimeoutMs: durationFlag('lctl-timeout', '10s', 'Deadline of one lctl get_param run.'),
  };
}
