// The `jobio` command line: one program, subcommands for the exporter and the user tools.
// Exit codes: 0 success, 1 runtime failure, 2 usage error (unknown flag, bad value), as CLI users expect.
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import { exporterCommand, type ExporterCommandOptions } from './exporter-command.js';
import { runCommand } from './run-command.js';
import { preloadPathCommand } from './preload-path-command.js';
import { topCommand } from './top-command.js';
import { demoCommand } from './demo-command.js';

export interface MainOptions {
  readonly exporter?: ExporterCommandOptions;
}

export function buildProgram(run: (action: () => Promise<number>) => void, options: MainOptions = {}): Command {
  const program = new Command('jobio')
    .description('Per-job I/O monitoring for HPC clusters (Lustre jobstats, I/O profiler, GPU) for Prometheus and Grafana.')
    .version(VERSION, '-V, --version', 'Print the jobio version.')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions();
  program.addCommand(exporterCommand(run, options.exporter));
  program.addCommand(runCommand(run)).addCommand(preloadPathCommand(run)).addCommand(topCommand(run));
  program.addCommand(demoCommand(run));
  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  let pending: Promise<number> | undefined;
  const program = buildProgram((action) => {
    pending = action();
  }, options);
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
