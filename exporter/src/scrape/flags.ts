// Typed collector flags: each flag states its name, help, default and parser once, and a collector's
// flag set both declares its `--collector.<name>.<flag>` options (flags.list, for the command line)
// and turns the options it is given into typed settings (flags.read), defaults filled in:
//
//   const flags = defineFlags({ maxJobs: positiveIntegerFlag('max-jobs', 100, '…'), ...USER_FLAGS });
//   descriptor.flags = flags.list;   const settings = flags.read(options); // { maxJobs: number, … }
//
// Groups shared by several collectors (USER_FLAGS, statsFlags(), lctlFlags()) are plain objects of
// flags, spread into each set; the keys of the object are the setting names, its order the --help order.
import type { CollectorFlag, CollectorOptions, FlagValue } from './collector.js';
import { positiveDuration, positiveInteger } from './flag-values.js';

/** Setting name → flag. */
export type FlagModel = Readonly<Record<string, CollectorFlag>>;

/** The typed settings a flag model reads into. */
export type SettingsOf<M extends FlagModel> = { readonly [K in keyof M]: M[K] extends CollectorFlag<infer T> ? T : never };

export interface FlagSet<M extends FlagModel> {
  /** The flags in declaration order, for the descriptor (and so the command line). */
  readonly list: readonly CollectorFlag[];
  /**
   * The settings from `options`: each option as the command line parsed it, or as text (parsed
   * here, so a test may write `expiry: '10m'`); a flag not given takes its default. An option no
   * flag declares is an error, so a misspelt name cannot pass silently.
   */
  read(options: CollectorOptions): SettingsOf<M>;
}

export function defineFlags<M extends FlagModel>(model: M): FlagSet<M> {
  const entries = Object.entries(model);
  const names = new Set<string>();
  for (const [, flag] of entries) {
    if (names.has(flag.name)) throw new Error(`internal: flag ${flag.name} declared twice`);
    names.add(flag.name);
  }
  return {
    list: entries.map(([, flag]) => flag),
    read(options) {
      for (const name of Object.keys(options)) if (!names.has(name)) throw new Error(`unknown option "${name}" (known: ${[...names].join(', ')})`);
      const settings: Record<string, FlagValue> = {};
      for (const [key, flag] of entries) settings[key] = valueOf(flag, options[flag.name]);
      return settings as SettingsOf<M>;
    },
  };
}

function valueOf<T extends FlagValue>(flag: CollectorFlag<T>, given: FlagValue | undefined): T {
  if (given === undefined) return flag.default;
  if (typeof given === 'string') return flag.parse(given);
  if (typeof given === typeof flag.default) return given as T;
  throw new Error(`option ${flag.name}: ${JSON.stringify(given)} is not a ${typeof flag.default}`);
}

/** A flag with a value, whose default is the text `defaultText` parsed (so --help shows what a user would type). */
export function valueFlag<T extends FlagValue>(name: string, defaultText: string, help: string, parse: (raw: string) => T): CollectorFlag<T> {
  return { name, help, defaultText, parse, default: parse(defaultText) };
}

/** Free text (a path, a program, a name). */
export function textFlag(name: string, defaultText: string, help: string): CollectorFlag<string> {
  return valueFlag(name, defaultText, help, (raw) => raw);
}

export function positiveIntegerFlag(name: string, defaultValue: number, help: string): CollectorFlag<number> {
  return valueFlag(name, String(defaultValue), help, positiveInteger);
}

/** A positive duration such as `30m`; the setting is in milliseconds. */
export function durationFlag(name: string, defaultText: string, help: string): CollectorFlag<number> {
  return valueFlag(name, defaultText, help, positiveDuration);
}

/** An on/off switch: `--collector.<name>.<flag>`, or `--no-collector.<name>.<flag>` when it is on by default. */
export function switchFlag(name: string, defaultValue: boolean, help: string): CollectorFlag<boolean> {
  return { name, help, default: defaultValue, defaultText: String(defaultValue), parse: parseSwitch };
}

function parseSwitch(raw: string): boolean {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`"${raw}" is not true or false`);
}
