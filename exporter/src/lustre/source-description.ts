// Where a Lustre collector looks for its files, for the exporter's line per collector at start:
// `lctl get_param …` when told to use lctl, else the parameter files under the Lustre roots.
import type { SourceDescription } from '../scrape/collector.js';
import { lustreRoots } from '../sources/lustre-tree.js';
import type { Paths } from '../util/paths.js';

export function lustreSource(files: string, lctl: { readonly lctl: boolean; readonly lctlPath: string }, lctlArgs: readonly string[], paths: Paths): SourceDescription {
  return { source: lctl.lctl ? `${lctl.lctlPath} get_param ${lctlArgs.join(' ')}` : `${files} under ${lustreRoots(paths).join(', ')}` };
}
