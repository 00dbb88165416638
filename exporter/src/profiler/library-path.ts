// Where the profiler library (libjobio.so) is, for LD_PRELOAD: `jobio preload-path`, `jobio run` and
// `jobio demo` all find it the same way.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { findRepoFile } from './repo-file.js';

export const PROFILER_LIBRARY = 'native/profiler/build/libjobio.so';

/**
 * The profiler library: $JOBIO_PRELOAD_LIBRARY when set (an installed copy, or a test stand-in),
 * else the one `npm run build` produced in this checkout; undefined when neither exists.
 */
export function findProfilerLibrary(): string | undefined {
  const override = process.env['JOBIO_PRELOAD_LIBRARY'];
  if (override) return existsSync(override) ? resolve(override) : undefined;
  return findRepoFile(PROFILER_LIBRARY);
}

export function missingLibraryMessage(who: string): string {
  return `${who}: the profiler library is not built (${PROFILER_LIBRARY} not found): run \`npm run build\` (or \`npm ci\`) in the jobio checkout\n`;
}
