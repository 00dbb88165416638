// The collector contract. Every data source of the exporter is one collector: one file under
// collectors/, named like its flag (`--collector.<name>`) and its `collector` label.
//
// A collector never uses prom-client's collect() hook (a throwing collect() fails the whole
// registry render, and async collect() leaves sibling metrics a scrape behind). Instead the
// scrape runs update(): the collector reads its source, builds a snapshot, then synchronously
// resets and refills the metrics in its own registry.
import type { Registry } from 'prom-client';
import type { Logger } from '../util/logger.js';
import type { Paths } from '../util/paths.js';

/** What one update() found. `absent` means the source does not exist on this host: quiet, not an error. */
export type UpdateOutcome = 'ok' | 'absent';

export type FlagValue = string | number | boolean;

/** One `--collector.<name>.<flag>` option. */
export interface CollectorFlag {
  /** Option suffix, e.g. `max-jobs` for `--collector.lustre_jobstats.max-jobs`. */
  readonly name: string;
  readonly help: string;
  readonly default: FlagValue;
  /** Turns the command-line text into the value; throws an Error with a clear message when invalid. */
  readonly parse?: (raw: string) => FlagValue;
}

/** Options of one collector keyed by flag name (`max-jobs`), parsed and defaulted. */
export type CollectorOptions = Readonly<Record<string, FlagValue>>;

export interface CollectorContext {
  /** The collector's own registry: everything it exports goes here and nowhere else. */
  readonly registry: Registry;
  readonly paths: Paths;
  readonly options: CollectorOptions;
  readonly logger: Logger;
}

export interface Collector {
  /** Read the source and refresh the metrics. Throw on failure; the scrape records success 0. */
  update(signal: AbortSignal): Promise<UpdateOutcome>;
  /** Release sockets, timers, workers. */
  close?(): Promise<void>;
}

export interface CollectorDescriptor {
  /** Collector name = file name = flag = `collector` label = metric subsystem. */
  readonly name: string;
  readonly help: string;
  readonly defaultEnabled: boolean;
  readonly flags: readonly CollectorFlag[];
  create(context: CollectorContext): Collector;
}
