// The entry of the bundle bin/jobio.js starts `jobio run` and `jobio preload-path` from
// (scripts/bundle-cli.mjs makes it one CommonJS file): the same program as main.ts with only these
// two subcommands, imported statically so the bundle holds them and nothing of the other commands.
import { mainFrom, type CommandTable } from './program.js';
import { preloadPathCommand } from './preload-path-command.js';
import { runCommand } from './run-command.js';

/** The subcommands bin/jobio.js sends here; any other argv goes to main.ts. */
export const QUICK_COMMANDS: CommandTable = {
  run: (run) => runCommand(run),
  'preload-path': (run) => preloadPathCommand(run),
};

/** As main.ts's main, for the subcommands above. */
export function main(argv: readonly string[]): Promise<number> {
  return mainFrom(QUICK_COMMANDS, argv);
}
