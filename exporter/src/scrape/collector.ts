// The collector contract. Every data source of the exporter is one collector: one file under
// collectors/, named like its flag (`--collector.<name>`) and its `collector` label.
//
// The scrape runs update(): the collector reads its source and settles its state; then the scrape
// renders the collector's registry, whose families hand out samples from that state
// (scrape/metric-family.ts). A family's collect() never reads a source: what could fail or hang is
// in update(), which has a deadline and whose failure the scrape reports.
import type { MetricRegistry } from './metric-registry.js';
import type { Logger } from '../util/logger.js';
import type { Paths } from '../util/paths.js';

/** What one update() found. `absent` means the source does not exist on this host: quiet, not an error. */
export type UpdateOutcome = 'ok' | 'absent';

export type FlagValue = string | number | boolean;

/**
 * One `--collector.<name>.<flag>` option, typed by the value it yields. Built with the helpers of
 * flags.ts, which derive `default` from `defaultText` by `parse`, so each default is written once.
 */
export interface CollectorFlag<T extends FlagValue = FlagValue> {
  /** Option suffix, e.g. `max-jobs` for `--collector.lustre_jobstats.max-jobs`. */
  readonly name: string;
  readonly help: string;
  /** The value when the flag is not given. A boolean default makes the flag a switch (no value; spelt `--no-…` when true). */
  readonly default: T;
  /** The default as the command line spells it ('30m' for 1800000 ms), shown by --help. */
  readonly defaultText: string;
  /** Turns the command-line text into the value; throws an Error saying what is wrong. */
  readonly parse: (raw: string) => T;
}

/**
 * Options of one collector keyed by flag name (`max-jobs`), as parsed by the flags. Collectors read
 * them through their flag set (flags.ts: `flags.read(options)`), which fills in the defaults.
 */
export type CollectorOptions = Readonly<Record<string, FlagValue>>;

export interface CollectorContext {
  /** The collector's own registry: everything it exports goes here and nowhere else. */
  readonly registry: MetricRegistry;
  readonly paths: Paths;
  readonly options: CollectorOptions;
  readonly logger: Logger;
}

/** What a collector reads on this host, for the exporter's line per collector at start. */
export interface SourceDescription {
  /** The files, library, socket or command it reads, as configured here. */
  readonly source: string;
  /** Why the last update found no source, when the collector knows more than "not there". */
  readonly why?: string;
  /** A missing source that is a likely deployment mistake (logged at warn, not info). */
  readonly warn?: boolean;
}

export interface Collector {
  /** Read the source and refresh the metrics. Throw on failure; the scrape records success 0. */
  update(signal: AbortSignal): Promise<UpdateOutcome>;
  /** Where the source is looked for (and why it was not found): the startup log line. */
  describe?(): SourceDescription;
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
