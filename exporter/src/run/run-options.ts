// Options of `jobio run`: command-line flags over an optional YAML file with the same keys
// (Mistral-style configuration). Pure: text in, typed options or a UsageError out.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseDuration } from '../util/duration.js';
import { canonicalChoice, optionSpec, RUN_OPTIONS, type RunOptionName, type RunOptionValue, type RunOptionValues } from './option-table.js';
import type { DirectionKeys, IoKeyOptions } from '../profiler/mistral-io.js';

export class UsageError extends Error {}

export type { SizeBinning, MetadataMode, DirectionKeys, IoKeyOptions } from '../profiler/mistral-io.js';

export type CpuMemory = RunOptionValue<'cpu-memory'>;

type OptionKeys<K extends keyof RunOptionValues> = K; // a misspelt key is an error, not an option left in
/** The options the table's rows fold into: `timeframe` in seconds, the read, write, seek, metadata and size-bin rows into `io`, `gpu` into `nvmlLibrary` ('none': no gpu records). */
type Folded = OptionKeys<'timeframe' | 'sizeBins' | 'read' | 'readDuration' | 'readSized' | 'write' | 'writeDuration' | 'writeSized' | 'seek' | 'metadata' | 'metadataDuration' | 'gpu'>;

/** The options of a run: the option table's values (RunOptionValues), with these folded as resolveRunOptions() does. */
export type RunOptions = Omit<RunOptionValues, Folded> & {
  /** Length of the periodic records, whole seconds; 0 (`no`) = one frame for the whole run. */
  readonly timeframeSec: number;
  /** Which keys the `io` objects have (sizes, durations, metadata). */
  readonly io: IoKeyOptions;
};

/** The keys accepted both as `--key` flags and in the YAML file. */
export const RUN_OPTION_KEYS: readonly string[] = RUN_OPTIONS.map((o) => o.name);
export type RawRunOptions = Partial<Record<string, unknown>>;

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3 };

/** Byte sizes: 32768, 32KiB, 32k, 128MiB (units are powers of 1024). */
export function parseSize(text: string, what: string): number {
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = UNITS[(m?.[2] ?? '').toLowerCase()];
  const value = m && unit !== undefined ? Number(m[1]) * unit : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new UsageError(`${what}: "${text}" is not a positive size (e.g. 32KiB, 4096)`);
  return value;
}

function count(text: string, what: string, min: number): number {
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) throw new UsageError(`${what}: "${text}" is not an integer >= ${min}`);
  return value;
}

function timeframe(text: string, what: string): number {
  if (text === 'no') return 0;
  let ms: number;
  try {
    ms = /^\s*\d+\s*$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  } catch (err) {
    throw new UsageError(`${what}: ${(err as Error).message}`);
  }
  if (ms < 1000 || ms % 1000 !== 0) throw new UsageError(`${what}: "${text}" must be a whole number of seconds, at least 1s`);
  return ms / 1000;
}

function bool(value: unknown, what: string): boolean {
  if (typeof value === 'boolean') return value;
  const v = typeof value === 'string' ? value.toLowerCase() : value;
  if (v === 'true' || v === '1' || v === 'yes' || v === 'on' || v === 1) return true;
  if (v === 'false' || v === '0' || v === 'no' || v === 'off' || v === 0) return false;
  throw new UsageError(`${what}: "${String(value)}" is not yes or no`);
}

function choice(name: string, value: unknown): string {
  const spec = optionSpec(name);
  const v = canonicalChoice(spec, text(value));
  if (spec.kind.type !== 'choice' || spec.kind.choices.includes(v)) return v;
  const all = spec.kind.choices;
  throw new UsageError(`--${name}: "${text(value)}" must be ${all.slice(0, -1).join(', ')} or ${all[all.length - 1] ?? ''}`);
}

/** Reads the YAML configuration file; unknown keys are errors (a typo must not be ignored silently). */
export function readConfigFile(path: string): RawRunOptions {
  let doc: unknown;
  try {
    // Loaded only for --config: the YAML parser is ~80 modules, a third of `jobio run`'s start-up.
    const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    doc = yaml.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--config ${path}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`--config ${path}: expected a mapping of options`);
  const raw: RawRunOptions = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!RUN_OPTION_KEYS.includes(key)) throw new UsageError(`--config ${path}: unknown option "${key}" (known: ${RUN_OPTION_KEYS.join(', ')})`);
    raw[key] = value;
  }
  return raw;
}

const text = (value: unknown): string => (typeof value === 'number' ? String(value) : typeof value === 'string' ? value : JSON.stringify(value));

/** A file or library name: an empty one (`--output=`, `output:` with no value in a file) is a usage error. */
function named(value: unknown, what: string, needed: string): string {
  const name = value === null ? '' : text(value);
  if (name === '') throw new UsageError(`${what}: ${needed}`);
  return name;
}

/** Comma-separated items of one value or of several (a repeated flag, a YAML list), trimmed, none empty. */
function list(value: unknown): string[] {
  return (Array.isArray(value) ? value.map(text) : [text(value)])
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** An option's value checked as its kind in the option table says; every message names the flag. */
function tableValue(name: string, value: unknown): unknown {
  const spec = optionSpec(name);
  const flag = `--${name}`;
  switch (spec.kind.type) {
    case 'bool':
      return bool(value, flag);
    case 'size':
      return parseSize(text(value), flag);
    case 'count':
      return count(text(value), flag, spec.kind.min);
    case 'timeframe':
      return timeframe(text(value), flag);
    case 'choice':
      return choice(name, value);
    case 'path':
      return named(value, flag, 'a file name is needed');
    case 'text':
      return named(value, flag, spec.kind.needed);
    case 'list':
      return list(value ?? []);
  }
}

/** Merges file and flags (flags win) and validates everything. */
export function resolveRunOptions(fromFile: RawRunOptions, fromFlags: RawRunOptions): RunOptions {
  const raw: RawRunOptions = {};
  for (const o of RUN_OPTIONS) if (o.default !== undefined) raw[o.name] = o.default;
  for (const [k, v] of Object.entries(fromFile)) if (v !== undefined) raw[k] = v;
  for (const [k, v] of Object.entries(fromFlags)) if (v !== undefined) raw[k] = v;
  // tableValue() checked the value as the row's kind says, so it is of the row's type
  const value = <N extends RunOptionName>(name: N): RunOptionValue<N> => tableValue(name, raw[name]) as RunOptionValue<N>;
  const sizeBins = value('size-bins');
  const smallThreshold = value('small-threshold');
  const largeThreshold = value('large-threshold');
  if (largeThreshold < smallThreshold) throw new UsageError('--large-threshold must not be below --small-threshold');
  const direction = (dir: 'read' | 'write'): DirectionKeys => {
    const sized = raw[`${dir}-sized`] === undefined ? sizeBins : value(`${dir}-sized`);
    // both writes both kinds of keys: a threshold range must not have a power-of-two range's name
    const pow2 = (n: number): boolean => Number.isInteger(Math.log2(n));
    if (sized === 'both' && (smallThreshold === 1 || (pow2(smallThreshold) && largeThreshold === 2 * smallThreshold)))
      throw new UsageError(
        `--${raw[`${dir}-sized`] === undefined ? 'size-bins' : `${dir}-sized`} both: the thresholds name a power-of-two range (small 1 B, or large twice a power-of-two small); choose others`,
      );
    return { enabled: value(dir), duration: value(`${dir}-duration`), sized };
  };
  const env = value('env');
  for (const name of env) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`--env: "${name}" is not an environment variable name`);
  const minSampled = value('min-sampled');
  const io: IoKeyOptions = {
    read: direction('read'),
    write: direction('write'),
    seek: value('seek'),
    metadata: value('metadata'),
    metadataDuration: value('metadata-duration'),
    smallThreshold,
    largeThreshold,
    minSampled,
  };
  const nvmlLibrary = value('nvml-library');
  return {
    ...(raw.output !== undefined ? { output: value('output') } : {}),
    ...(raw['error-log'] !== undefined ? { errorLog: value('error-log') } : {}),
    timeframeSec: value('timeframe'),
    totals: value('totals'),
    smallThreshold,
    largeThreshold,
    io,
    sampleEvery: value('sample-every'),
    sampleMaxPerSec: value('sample-max-per-sec'),
    env: [...new Set(env)],
    network: value('network'),
    minSampled,
    cpuMemory: value('cpu-memory'),
    nvmlLibrary: value('gpu') ? nvmlLibrary : 'none',
    waitPid: value('wait-pid'),
    diagnosis: value('diagnosis'),
  };
}

/**
 * The profiler library's environment for these options (names from native/profiler). `originMs`: the
 * run's start (wall clock), from which the library counts its one-second frames.
 */
export function libraryEnvironment(options: RunOptions, socketPath: string, originMs?: number): Record<string, string> {
  return {
    JOBIO_SOCKET: socketPath,
    // jobio run computes per-second statistics, so the library flushes every second; the records'
    // own timeframe (--timeframe) is applied here, on the receiving side.
    JOBIO_TIMEFRAME: '1',
    // a thread in each process sends its snapshot just before each of the run's seconds ends, so a
    // process that went quiet (read its input, then computes) has its I/O in the second it happened
    JOBIO_FLUSH_THREAD: '1',
    ...(originMs !== undefined ? { JOBIO_FRAME_ORIGIN_NS: (BigInt(Math.floor(originMs)) * 1_000_000n).toString() } : {}),
    JOBIO_SMALL_THRESHOLD: String(options.smallThreshold),
    JOBIO_LARGE_THRESHOLD: String(options.largeThreshold),
    JOBIO_SAMPLE_EVERY: String(options.sampleEvery),
    JOBIO_SAMPLE_MAX_PER_SEC: String(options.sampleMaxPerSec),
    JOBIO_NETWORK: options.network ? '1' : '0',
    ...(options.errorLog !== undefined ? { JOBIO_ERROR_LOG: options.errorLog } : {}),
  };
}
