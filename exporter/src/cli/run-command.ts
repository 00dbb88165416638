// `jobio run [options] -- CMD ARGS`: runs CMD with the profiler preloaded (children included) and a
// private receiver socket, passes CMD's exit status through (a signal n gives 128+n), prints the
// red/yellow/green summary to stderr and, with --output, writes Mistral-compatible JSON lines. This
// file is the command line (the flags come from the option table); run/session.ts is the run.
import { Command, Option } from 'commander';
import { attributeName, RUN_OPTIONS } from '../run/option-table.js';
import type { RawRunOptions } from '../run/run-options.js';
import { runSession, type SessionFlags } from '../run/session.js';
import { parseAttach } from '../run/attached-job.js';
import { defaultPaths } from '../util/paths.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function runCommand(run: (action: () => Promise<number>) => void): Command {
  const command = new Command('run')
    .description('Run CMD under the I/O profiler (children included), print its red/yellow/green I/O summary to stderr and pass its exit status through.')
    .usage('[options] -- CMD [ARGS...]')
    .argument('<command...>', 'the command to profile, and its arguments (after --)')
    .passThroughOptions();
  for (const option of tableOptions()) command.addOption(option);
  command
    .addOption(new Option('--config <file>', 'YAML file with any of the options above as keys (flags win).'))
    .addOption(
      new Option('--mistral-config <file>', "A site's mistral_config.yaml: every key of Mistral's configuration table is read by its Mistral name (--config and flags win; docs/jobio-run.md)."),
    )
    .addOption(new Option('--path.procfs <path>', 'Where the Lustre client stats (fs/lustre/llite) and the mount table are read, for the profiler coverage line.').default(defaultPaths.procfs))
    .addOption(new Option('--path.sysfs <path>', 'Where the Lustre client stats of 2.12+ (kernel/debug/lustre/llite, fs/lustre/llite) are read.').default(defaultPaths.sysfs))
    // the profiler library starts the session of a job begun by a Mistral-style script with it (docs/jobio-run.md)
    .addOption(new Option('--attach <fd,pids>', 'Internal: the session of a job the profiler library started.').hideHelp());
  command.action((argv: string[]) => run(() => runSession(argv, sessionFlags(command), flagsToRaw(command))));
  return command;
}

/** The flags of the option table: `--name <arg>`, and for yes/no options both `--name` and `--no-name` (the one against the default shown). */
function tableOptions(): Option[] {
  const out: Option[] = [];
  for (const spec of RUN_OPTIONS) {
    const dflt =
      (spec.default !== undefined ? ` Default ${spec.default}${spec.mistralDefault !== undefined ? ` (${spec.mistralDefault} with a Mistral configuration)` : ''}.` : '') +
      (spec.mistralEnv !== undefined ? ` Also $${spec.mistralEnv}.` : '');
    if (spec.kind.type === 'bool') {
      const on = spec.default === 'yes';
      const yes = new Option(`--${spec.name}`, `${spec.doc}${dflt}`);
      const no = new Option(`--no-${spec.name}`, `Do not: ${spec.doc.charAt(0).toLowerCase()}${spec.doc.slice(1)}${dflt}`);
      // both shown where a Mistral configuration's default is the other one
      out.push(on && spec.mistralDefault === undefined ? yes.hideHelp() : yes, on ? no : no.hideHelp());
      continue;
    }
    const option = new Option(`${spec.short !== undefined ? `${spec.short}, ` : ''}--${spec.name} ${spec.arg ?? '<value>'}`, `${spec.doc}${dflt}`);
    out.push(spec.kind.type === 'list' ? option.argParser(collect) : option);
  }
  return out;
}

/** The table's options given on the command line (commander's defaults are not flags: the files may set them). */
function flagsToRaw(command: Command): RawRunOptions {
  const opts = command.opts<Record<string, unknown>>();
  const raw: RawRunOptions = {};
  for (const spec of RUN_OPTIONS) {
    const attribute = attributeName(spec.name);
    if (command.getOptionValueSource(attribute) === 'cli') raw[spec.name] = opts[attribute];
  }
  return raw;
}

/** The flags outside the option table: the two configuration files and the Lustre client's paths. */
function sessionFlags(command: Command): SessionFlags {
  const opts = command.opts<Record<string, unknown>>();
  const text = (name: string): string | undefined => (typeof opts[name] === 'string' ? opts[name] : undefined);
  return {
    ...(text('config') !== undefined ? { config: text('config') } : {}),
    ...(text('mistralConfig') !== undefined ? { mistralConfig: text('mistralConfig') } : {}),
    ...(text('attach') !== undefined ? { attach: parseAttach(text('attach') ?? '') } : {}),
    lustrePaths: { procfs: text('path.procfs') ?? defaultPaths.procfs, sysfs: text('path.sysfs') ?? defaultPaths.sysfs, rootfs: defaultPaths.rootfs },
  };
}
