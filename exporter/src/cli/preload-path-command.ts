// `jobio preload-path`: the absolute path of the built profiler library, for LD_PRELOAD in job
// scripts and scheduler integration: LD_PRELOAD="$(jobio preload-path)" srun ./app
import { Command } from 'commander';
import { findProfilerLibrary, missingLibraryMessage } from '../profiler/library-path.js';

export function preloadPathCommand(run: (action: () => Promise<number>) => void): Command {
  return new Command('preload-path').description('Print the absolute path of the built profiler library (for LD_PRELOAD).').action(() =>
    run(() => {
      const lib = findProfilerLibrary();
      if (!lib) {
        process.stderr.write(missingLibraryMessage('jobio preload-path'));
        return Promise.resolve(1);
      }
      process.stdout.write(`${lib}\n`);
      return Promise.resolve(0);
    }),
  );
}
