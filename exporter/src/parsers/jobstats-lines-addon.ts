// Loads the job_stats line addon (native/jobscan), built by `npm run build`: the byte loop of the
// job_stats scanner in C++ (lustre-jobstats.ts hands it the bytes and reads its records). Lines that
// change nothing (blank, snapshot_time, elapsed_time) make no record.
import type * as Addon from '../../../native/jobscan/index.js';
import { requireRepoAddon } from '../profiler/repo-file.js';

const ADDON = 'native/jobscan/build/Release/jobio_jobscan.node';

/** Record kinds of scanLines() (native/jobscan/src/counter-lines.h). */
export const OTHER_LINE = 1;
export const COUNTER_LINE = 2;
export const START_TIME_LINE = 3;
/**
 * Fields of a record: kind, line start, line end, then for a counter: name start, name end, unit
 * start (-1: none), unit end, samples, sum (-1: none), name number, unit number (-1: none, or the
 * addon's name table is full); for start_time: its seconds in field 7.
 */
export const RECORD_FIELDS = 11;

let loaded: typeof Addon | undefined;
let missing: Error | undefined;

/**
 * The addon, or undefined when it is not built (the scanner then reads every line in JavaScript, with
 * the same result, several times slower). `linesAddonError()` says why.
 */
export function linesAddon(): typeof Addon | undefined {
  if (loaded !== undefined || missing !== undefined) return loaded;
  try {
    loaded = requireRepoAddon(ADDON, 'job_stats lines') as typeof Addon;
    if (loaded.recordFields !== RECORD_FIELDS) throw new Error(`the job_stats lines addon writes ${loaded.recordFields} numbers a record, this code reads ${RECORD_FIELDS}: rebuild it`);
  } catch (err) {
    loaded = undefined;
    missing = err instanceof Error ? err : new Error(String(err));
  }
  return loaded;
}

/** Why linesAddon() is undefined (undefined while it loads). */
export function linesAddonError(): Error | undefined {
  linesAddon();
  return missing;
}
