// A flag given twice is a usage error (exit 2), as in node_exporter (kingpin: "flag ... cannot be
// repeated"): with commander's last-one-wins, a second `--web.listen-address` appended to a unit file
// or a `--collector.gpu` overridden by a later `--no-collector.gpu` would be obeyed silently. The two
// spellings of one switch (`--x` and `--no-x`) are one flag, so contradicting switches are refused too.
// Options whose help says they are repeatable (`--exporter`, `--env`) may be given any number of times.
import type { Command, Option } from 'commander';

/** The first flag of `args` (the words after the subcommand) given more than once, as a message. */
export function repeatedOption(command: Command, args: readonly string[]): string | undefined {
  const seen = new Map<string, string>(); // attribute name → the spelling first seen
  for (let i = 0; i < args.length; i++) {
    const word = args[i] ?? '';
    // Options end at `--` and, for commands that pass options through (`jobio run CMD -o x`), at the first operand.
    if (word === '--' || !word.startsWith('-')) return undefined;
    const eq = word.indexOf('=');
    const name = word.startsWith('--') && eq > 0 ? word.slice(0, eq) : word;
    const option = findOption(command, name);
    if (!option) continue; // commander has already refused unknown options
    const attached = eq > 0 || (option.short !== undefined && name.startsWith(option.short) && name.length > option.short.length);
    if ((option.required || option.optional) && !attached) i += 1; // the next word is the value
    if (/\brepeatable\b/.test(option.description)) continue;
    const spelling = option.long ?? option.short ?? name;
    const first = seen.get(option.attributeName());
    if (first === undefined) {
      seen.set(option.attributeName(), spelling);
      continue;
    }
    if (first !== spelling) return `options '${first}' and '${spelling}' contradict each other (give one)`;
    return `option '${spelling}' given more than once${option.required || option.optional ? ' (it takes one value)' : ''}`;
  }
  return undefined;
}

function findOption(command: Command, word: string): Option | undefined {
  return command.options.find((o) => o.long === word || (o.short !== undefined && (word === o.short || (word.startsWith(o.short) && !word.startsWith('--')))));
}
