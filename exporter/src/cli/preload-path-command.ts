// `jobio preload-path`: the absolute path of the built profiler library, for LD_PRELOAD in job
// scripts and scheduler integration: LD_PRELOAD="$(jobio preload-path)" srun ./app
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { findRepoFile } from '../profiler/repo-file.js';

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

export function preloadPathCommand(run: (action: () => Promise<number>) => void): Command {
  return new Command('preload-path')
    .description('Print the absolute path of the built profiler library (for LD_PRELOAD).')
    .action(() =>
      run(async () => {
        const lib = findProfilerLibrary();
        if (!lib) {
          process.stderr.write(missingLibraryMessage('jobio preload-path'));
          return 1;
        }
        process.stdout.write(`${lib}\n`);
        return 0;
      }),
    );
}
