// The options of `jobio run`, declared once: each row gives the flag and `--config` key (`name`), the
// keys of a Mistral configuration file that set it (`mistral`, the manual's name first), its type, its
// default (and the default a Mistral file implies where it differs), and the help text. The flags
// (cli/run-command.ts), the YAML keys (run-options.ts, mistral-config.ts) and the validation of every
// value by its kind (run-options.ts) come from here.

export type OptionKind =
  | { readonly type: 'path' }
  /** `needed`: the usage error's words for an empty value. */
  | { readonly type: 'text'; readonly needed: string }
  | { readonly type: 'bool' }
  | { readonly type: 'size' }
  | { readonly type: 'count'; readonly min: number }
  | { readonly type: 'timeframe' }
  | { readonly type: 'list' }
  | { readonly type: 'choice'; readonly choices: readonly string[]; readonly aliases?: Readonly<Record<string, string>> };

export interface RunOptionSpec {
  /** Flag (`--name`) and key of a jobio `--config` file. */
  readonly name: string;
  readonly short?: string;
  /** Keys of a Mistral configuration file (dotted: `read.sized`), the manual's spelling first. */
  readonly mistral?: readonly string[];
  readonly kind: OptionKind;
  /** Mistral's environment variable for it, which wins over a Mistral configuration file (not over --config or the flags). */
  readonly mistralEnv?: string;
  /** jobio's default, as text (absent: unset). */
  readonly default?: string;
  /** The default of a Mistral configuration file where it differs from jobio's. */
  readonly mistralDefault?: string;
  /** Placeholder of the flag's value. */
  readonly arg?: string;
  readonly doc: string;
}

export const SIZED = { type: 'choice', choices: ['small-medium-large', 'binary', 'combined', 'both'], aliases: { pow2: 'binary', smallmediumlarge: 'small-medium-large' } } as const;
const YES_NO = { type: 'bool' } as const;

// `as const`: the rows' names, kinds and defaults stay literal types, from which RunOptionValues is derived.
const OPTION_ROWS = [
  {
    name: 'output',
    short: '-o',
    arg: '<file>',
    mistral: ['output'],
    mistralEnv: 'MISTRAL_LOG',
    kind: { type: 'path' },
    doc: 'Write Mistral-compatible JSON lines (mountpoint, mountpointsummary, jobsummary, resources, network, gpu and diagnosis records) to FILE; %h short host name, %j job id, %p pid of jobio run, %% a "%" (one file per node: -o io-%j-%h.jsonl).',
  },
  { name: 'error-log', arg: '<file>', mistral: ['error'], mistralEnv: 'MISTRAL_ERR_LOG', kind: { type: 'path' }, doc: "The profiler library's own messages go to FILE (never to CMD's output)." },
  {
    name: 'timeframe',
    arg: '<duration>',
    mistral: ['timeframe'],
    kind: { type: 'timeframe' },
    default: '10s',
    doc: 'Length of the periodic records (whole seconds, e.g. 10s, 1m; no = one frame for the whole run).',
  },
  { name: 'totals', mistral: ['totals'], kind: YES_NO, default: 'yes', doc: 'Write the job-total records at the end (jobtotal: true; the summaries included).' },
  { name: 'small-threshold', arg: '<size>', mistralEnv: 'MISTRAL_PROFILE_SMALL_IO', kind: { type: 'size' }, default: '32KiB', doc: 'Transfers below this are small (red).' },
  { name: 'large-threshold', arg: '<size>', kind: { type: 'size' }, default: '128MiB', doc: 'Transfers from this size up are large.' },
  {
    name: 'size-bins',
    arg: '<binning>',
    kind: SIZED,
    default: 'small-medium-large',
    doc: 'Size ranges of the read and write keys: small-medium-large, binary (powers of two; also pow2), combined (one aggregate, read_all/write_all only) or both (the ranges and the powers of two).',
  },
  { name: 'read', mistral: ['read.enabled'], kind: YES_NO, default: 'yes', doc: 'Report read statistics (read_* keys).' },
  { name: 'read-duration', mistral: ['read.duration'], kind: YES_NO, default: 'yes', mistralDefault: 'no', doc: 'Report the duration of reads.' },
  { name: 'read-sized', arg: '<binning>', mistral: ['read.sized'], kind: SIZED, doc: 'Size ranges of the read keys (as --size-bins, which it overrides for reads).' },
  { name: 'write', mistral: ['write.enabled'], kind: YES_NO, default: 'yes', doc: 'Report write statistics (write_* keys).' },
  { name: 'write-duration', mistral: ['write.duration'], kind: YES_NO, default: 'yes', mistralDefault: 'no', doc: 'Report the duration of writes.' },
  { name: 'write-sized', arg: '<binning>', mistral: ['write.sized'], kind: SIZED, doc: 'Size ranges of the write keys (as --size-bins, which it overrides for writes).' },
  { name: 'seek', mistral: ['seek.enabled'], kind: YES_NO, default: 'yes', doc: 'Report seek statistics.' },
  {
    name: 'metadata',
    arg: '<mode>',
    mistral: ['metadata.enabled'],
    kind: { type: 'choice', choices: ['combined', 'separate', 'both', 'no'] },
    default: 'both',
    mistralDefault: 'combined',
    doc: 'Metadata keys: combined (one metadata key), separate (open, create, access, delete, fschange, mmap, connect, accept), both, or no.',
  },
  { name: 'metadata-duration', mistral: ['metadata.duration'], kind: YES_NO, default: 'yes', mistralDefault: 'no', doc: 'Report the duration of metadata calls (and seeks).' },
  {
    name: 'sample-every',
    arg: '<n>',
    mistral: ['duration-sampling.sample', 'duration-sampling.sample-factor'],
    kind: { type: 'count', min: 0 },
    default: '16',
    mistralDefault: '0',
    doc: 'Time 1 call in n (durations are scaled estimates; 1 times every call; 0 chooses from the cost of reading the clock).',
  },
  {
    name: 'sample-max-per-sec',
    arg: '<n>',
    mistral: ['duration-sampling.limit', 'duration-sampling.sample-limit'],
    kind: { type: 'count', min: 0 },
    default: '0',
    doc: 'At most n timed calls per second per thread (0 = no cap, or 1000 on a slow clock when --sample-every is 0).',
  },
  { name: 'min-sampled', arg: '<n>', mistralEnv: 'MISTRAL_MONITOR_DURATION_SAMPLE', kind: { type: 'count', min: 0 }, default: '10', doc: 'Report durations only when at least n calls were timed.' },
  { name: 'env', arg: '<var>', mistral: ['vars'], kind: { type: 'list' }, doc: 'Report this environment variable in every record (repeatable, or comma-separated).' },
  { name: 'network', mistral: ['network.enabled'], kind: YES_NO, default: 'no', doc: 'Count socket I/O (connect, accept, send, recv) per peer address and write network records.' },
  {
    name: 'cpu-memory',
    arg: '<scope>',
    mistral: ['cpu-memory.enabled'],
    kind: { type: 'choice', choices: ['all', 'job', 'host', 'no'] },
    default: 'all',
    doc: 'CPU/memory in the resources records: all (host and job blocks), job, host, or no (no resources records).',
  },
  { name: 'gpu', mistral: ['gpu.enabled'], kind: YES_NO, default: 'yes', mistralDefault: 'no', doc: 'Write gpu records (when NVML and a GPU are there).' },
  {
    name: 'nvml-library',
    arg: '<lib>',
    mistral: ['gpu.nvidia-library-path'],
    kind: { type: 'text', needed: 'a library name or path is needed (none: no gpu records)' },
    default: 'libnvidia-ml.so.1',
    doc: 'NVML library for the gpu records (a soname or a path; default: the system one; none = no gpu records).',
  },
  {
    name: 'wait-pid',
    arg: '<which>',
    mistral: ['wait_pid'],
    kind: { type: 'choice', choices: ['mistral', 'first', 'parent', 'group', 'parent-group'] },
    default: 'mistral',
    doc: 'Which process ends the job: jobio run starts the job, so every value waits for CMD and then for its processes still connected.',
  },
  { name: 'diagnosis', kind: YES_NO, default: 'yes', doc: "Write jobio's diagnosis record at the end." },
] as const satisfies readonly RunOptionSpec[];

export const RUN_OPTIONS: readonly RunOptionSpec[] = OPTION_ROWS;

type OptionRow = (typeof OPTION_ROWS)[number];
export type RunOptionName = OptionRow['name'];

/** What an option's value is once its kind has checked it (run-options.ts): a choice is one of its choices. */
type KindValue<K extends OptionKind> = K extends { readonly type: 'bool' }
  ? boolean
  : K extends { readonly type: 'size' | 'count' | 'timeframe' }
    ? number
    : K extends { readonly type: 'list' }
      ? readonly string[]
      : K extends { readonly type: 'choice'; readonly choices: readonly (infer C)[] }
        ? C
        : string;

export type RunOptionValue<N extends RunOptionName> = KindValue<Extract<OptionRow, { readonly name: N }>['kind']>;

/** `read-sized` → `readSized`, as attributeName() spells it at run time. */
type Attribute<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Attribute<Tail>>}` : S;

/** An option always has a value when it has a default or is a list (then empty); the others may stay unset. */
type AlwaysSet = { readonly default: string } | { readonly kind: { readonly type: 'list' } };

/** Every option's checked value under its attribute name, typed from the table's rows. */
export type RunOptionValues = {
  readonly [R in OptionRow as R extends AlwaysSet ? Attribute<R['name']> : never]: KindValue<R['kind']>;
} & {
  readonly [R in OptionRow as R extends AlwaysSet ? never : Attribute<R['name']>]?: KindValue<R['kind']>;
};

/**
 * Mistral's environment variables that are not an option of the table: the configuration file, the
 * working directory, the programs left out and the volumes (read by mistral-env.ts into the
 * profiler library's variables). Like the options' `mistralEnv`, they win over the configuration file.
 */
export const MISTRAL_VARIABLES = {
  config: 'MISTRAL_CONFIG',
  workDirectory: 'MISTRAL_OUTPUT_DIRECTORY',
  notrace: 'MISTRAL_NOTRACE_PROGRAMS',
  bypass: 'MISTRAL_BYPASS_PROGRAMS',
  bypassDisable: 'MISTRAL_BYPASS_DISABLE',
  volumes: 'MISTRAL_VOLUMES',
} as const;

export function optionSpec(name: string): RunOptionSpec {
  const spec = RUN_OPTIONS.find((o) => o.name === name);
  if (!spec) throw new Error(`no option ${name}`);
  return spec;
}

/** `read-sized` → `readSized`: the attribute commander gives a flag. */
export const attributeName = (name: string): string => name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The value a choice option's alias stands for (`pow2` → `binary`); other text unchanged. */
export function canonicalChoice(spec: RunOptionSpec, value: string): string {
  if (spec.kind.type !== 'choice') return value;
  const lower = value.toLowerCase();
  return spec.kind.aliases?.[lower] ?? lower;
}
