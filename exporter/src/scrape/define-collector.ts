// A collector descriptor from its flag model: the command line gets the flags (descriptor.flags),
// and create() gets the typed settings read from the options, defaults filled in. So every
// collector reads its settings the one way, and states each default once, in its flag.
import type { Collector, CollectorContext, CollectorDescriptor } from './collector.js';
import { defineFlags, type FlagModel, type SettingsOf } from './flags.js';

export interface CollectorSpec<M extends FlagModel> {
  readonly name: string;
  readonly help: string;
  readonly defaultEnabled: boolean;
  /** Setting name → flag; the order is the --help order. */
  readonly flags: M;
  create(context: CollectorContext & { readonly settings: SettingsOf<M> }): Collector;
}

export function defineCollector<M extends FlagModel>(spec: CollectorSpec<M>): CollectorDescriptor {
  const flags = defineFlags(spec.flags);
  return {
    name: spec.name,
    help: spec.help,
    defaultEnabled: spec.defaultEnabled,
    flags: flags.list,
    create: (context) => spec.create({ ...context, settings: flags.read(context.options) }),
  };
}
