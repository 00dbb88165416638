// Turns the collector descriptors into node_exporter-style flags on a commander command and back:
//   --collector.<name> / --no-collector.<name>      enable or disable one collector
//   --collector.<name>.<option> VALUE               a collector's own option
import { Option, type Command } from 'commander';
import type { CollectorDescriptor, CollectorFlag, CollectorOptions, FlagValue } from '../scrape/collector.js';
import type { CollectorSelection } from '../scrape/enabled.js';

export class FlagError extends Error {}

function optionFor(descriptor: CollectorDescriptor, flag: CollectorFlag): Option {
  const long = `--collector.${descriptor.name}.${flag.name}`;
  if (typeof flag.default === 'boolean') return new Option(flag.default ? `--no-${long.slice(2)}` : long, flag.help);
  return new Option(`${long} <value>`, flag.help).default(flag.defaultText);
}

export function addCollectorFlags(command: Command, descriptors: readonly CollectorDescriptor[]): void {
  command.addOption(new Option('--collector.disable-defaults', 'Disable every collector not enabled explicitly with --collector.<name>.').default(false));
  for (const d of descriptors) {
    command.addOption(new Option(`--collector.${d.name}`, `Enable the ${d.name} collector (default: ${d.defaultEnabled ? 'enabled' : 'disabled'}). ${d.help}`));
    command.addOption(new Option(`--no-collector.${d.name}`, `Disable the ${d.name} collector.`));
    for (const flag of d.flags) command.addOption(optionFor(d, flag));
  }
}

function attribute(command: Command, long: string): string {
  const option = command.options.find((o) => o.long === long);
  if (!option) throw new Error(`internal: option ${long} not registered`);
  return option.attributeName();
}

export function readCollectorSelection(command: Command, descriptors: readonly CollectorDescriptor[]): CollectorSelection {
  const values = command.opts<Record<string, unknown>>();
  const explicit = new Map<string, boolean>();
  for (const d of descriptors) {
    const value = values[attribute(command, `--collector.${d.name}`)];
    if (typeof value === 'boolean') explicit.set(d.name, value);
  }
  return { disableDefaults: values[attribute(command, '--collector.disable-defaults')] === true, explicit };
}

export function readCollectorOptions(command: Command, descriptors: readonly CollectorDescriptor[]): Map<string, CollectorOptions> {
  const values = command.opts<Record<string, unknown>>();
  const all = new Map<string, CollectorOptions>();
  for (const d of descriptors) {
    const options: Record<string, FlagValue> = {};
    for (const flag of d.flags) {
      const long = typeof flag.default === 'boolean' && flag.default ? `--no-collector.${d.name}.${flag.name}` : `--collector.${d.name}.${flag.name}`;
      const raw = values[attribute(command, long)];
      if (typeof flag.default === 'boolean') {
        options[flag.name] = typeof raw === 'boolean' ? raw : flag.default;
        continue;
      }
      const text = typeof raw === 'string' ? raw : flag.defaultText;
      try {
        options[flag.name] = flag.parse(text);
      } catch (err) {
        throw new FlagError(`invalid value for --collector.${d.name}.${flag.name}: ${(err as Error).message}`);
      }
    }
    all.set(d.name, options);
  }
  return all;
}
