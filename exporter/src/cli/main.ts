// The `jobio` command line: one program, subcommands for the exporter and the user tools
// (program.ts parses; this file says where each subcommand lives).
import type { Command } from 'commander';
import { buildProgramFrom, mainFrom, type CommandTable, type MainOptions, type Runner } from './program.js';
import { holdYoungGeneration, releaseYoungGeneration } from '../util/young-generation.js';

export type { MainOptions } from './program.js';

/**
 * The subcommands, each loaded only when needed: `jobio run` must not pay for loading the
 * exporter's web stack (express, prom-client), which is most of Node's module loading otherwise.
 */
const COMMANDS: CommandTable = {
  // Released once the exporter listens (exporter-command.ts), or when it returns without listening.
  exporter: async (run, o) => {
    holdYoungGeneration();
    const command = await import('./exporter-command.js');
    return command.exporterCommand((action) => run(() => action().finally(releaseYoungGeneration)), o.exporter);
  },
  run: async (run) => (await import('./run-command.js')).runCommand(run),
  'preload-path': async (run) => (await import('./preload-path-command.js')).preloadPathCommand(run),
  top: async (run) => (await import('./top-command.js')).topCommand(run),
  demo: async (run) => (await import('./demo-command.js')).demoCommand(run),
  report: async (run) => (await import('./report-command.js')).reportCommand(run),
};

/** The program with the subcommand named first in argv, or with all of them (help, unknown names). */
export function buildProgram(run: Runner, options: MainOptions = {}, argv: readonly string[] = []): Promise<Command> {
  return buildProgramFrom(COMMANDS, run, options, argv);
}

/** Runs the CLI and resolves to the process exit code. */
export function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  return mainFrom(COMMANDS, argv, options);
}
