// The `jobio` command line: one program, subcommands for the exporter and the user tools.
// Exit codes: 0 success, 1 runtime failure, 2 usage error (unknown flag, bad value), as CLI users expect.
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import type { ExporterCommandOptions } from './exporter-command.js';

export interface MainOptions {
  readonly exporter?: ExporterCommandOptions;
}

type Runner = (action: () => Promise<number>) => void;

/**
 * The subcommands, each loaded only when needed: `jobio run` must not pay for loading the
 * exporter's web stack (express, prom-client), which is most of Node's module loading otherwise.
 */
const COMMANDS: Readonly<Record<string, (run: Runner, options: MainOptions) => Promise<Command>>> = {
  exporter: async (run, o) => (await import('./exporter-command.js')).exporterCommand(run, o.exporter),
  run: async (run) => (await import('./run-command.js')).runCommand(run),
  'preload-path': async (run) => (await import('./preload-path-command.js')).preloadPathCommand(run),
  top: async (run) => (await import('./top-command.js')).topCommand(run),
  demo: async (run) => (await import('./demo-command.js')).demoCommand(run),
};

/** The program with the subcommand named first in argv, or with all of them (help, unknown names). */
export async function buildProgram(run: Runner, options: MainOptions = {}, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('jobio')
    .description('Per-job I/O monitoring for HPC clusters (Lustre jobstats, I/O profiler, GPU) for Prometheus and Grafana.')
    .version(VERSION, '-V, --version', 'Print the jobio version.')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions();
  const first = argv[0];
  const names = first !== undefined && Object.hasOwn(COMMANDS, first) ? [first] : Object.keys(COMMANDS);
  for (const name of names) program.addCommand(await (COMMANDS[name] as (typeof COMMANDS)[string])(run, options));
  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  let pending: Promise<number> | undefined;
  const program = await buildProgram(
    (action) => {
      pending = action();
    },
    options,
    argv,
  );
  const exitOverride = (err: CommanderError): never => {
    throw err;
  };
  program.exitOverride(exitOverride);
  for (const sub of program.commands) sub.exitOverride(exitOverride).showHelpAfterError('(run `jobio ' + sub.name() + ' --help` for usage)');
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    process.stderr.write(`jobio: ${(err as Error).message}\n`);
    return 1;
  }
  if (!pending) {
    program.outputHelp({ error: true });
    return 2;
  }
  return pending;
}
