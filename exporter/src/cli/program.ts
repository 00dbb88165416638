// The `jobio` program over a table of subcommands: parsing, help and exit codes. Exit codes: 0
// success, 1 runtime failure, 2 usage error (unknown flag, bad value), as CLI users expect.
// main.ts gives it every subcommand, each loaded when named; quick-main.ts (the bundle `jobio run`
// starts from) gives it only its own, so the two build the same program and print the same help.
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';
import type { ExporterCommandOptions } from './exporter-command.js';
import { repeatedOption } from './repeated-options.js';

export interface MainOptions {
  readonly exporter?: ExporterCommandOptions;
}

export type Runner = (action: () => Promise<number>) => void;

/** Subcommand name → its builder (which may load the subcommand's module first). */
export type CommandTable = Readonly<Record<string, (run: Runner, options: MainOptions) => Command | Promise<Command>>>;

/** The program with the subcommand named first in argv, or with all of them (help, unknown names). */
export async function buildProgramFrom(commands: CommandTable, run: Runner, options: MainOptions = {}, argv: readonly string[] = []): Promise<Command> {
  const program = new Command('jobio')
    .description('Per-job I/O monitoring for HPC clusters (Lustre jobstats, I/O profiler, GPU) for Prometheus and Grafana.')
    .version(VERSION, '-V, --version', 'Print the jobio version.')
    .showHelpAfterError('(run with --help for usage)')
    .enablePositionalOptions();
  const first = argv[0];
  const names = first !== undefined && Object.hasOwn(commands, first) ? [first] : Object.keys(commands);
  for (const name of names) program.addCommand(await (commands[name] as CommandTable[string])(run, options));
  return program;
}

/** Runs the CLI over `commands` and resolves to the process exit code. */
export async function mainFrom(commands: CommandTable, argv: readonly string[], options: MainOptions = {}): Promise<number> {
  let pending: Promise<number> | undefined;
  const program = await buildProgramFrom(
    commands,
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
  for (const sub of program.commands) {
    sub.exitOverride(exitOverride).showHelpAfterError('(run `jobio ' + sub.name() + ' --help` for usage)');
    // After commander's own checks (unknown flags, bad values), before the subcommand runs.
    sub.hook('preAction', () => {
      const repeated = argv[0] === sub.name() ? repeatedOption(sub, argv.slice(1)) : undefined;
      if (repeated !== undefined) sub.error(`error: ${repeated}`, { code: 'jobio.repeatedOption', exitCode: 2 });
    });
  }
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
