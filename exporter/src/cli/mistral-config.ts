// A site's Mistral-style configuration file (`jobio run --mistral-config mistral_config.yaml`): the
// subset jobio can honour, as run options, record selection and profiler library variables. Every
// key is either read or named in a warning; a value that cannot be honoured is an error with
// file:line:key. Pure: text in, settings (or a UsageError) out.
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml';
import { resolveRunOptions, UsageError, type RawRunOptions } from './run-options.js';

/** Record types that can be switched off one by one. */
export const SECTIONS = ['mountpoint', 'network', 'resources', 'gpu', 'mountpointsummary', 'jobsummary', 'diagnosis'] as const;
export type Section = (typeof SECTIONS)[number];

export interface RecordSelection {
  /** false: no `jobtotal: true` mountpoint, network, resources and gpu records. */
  readonly totals: boolean;
  /** Record types written (network also needs network metering on). */
  readonly sections: Readonly<Record<Section, boolean>>;
}

export interface MistralSettings {
  /** Keys shared with `--config` and the flags (these win over the file). */
  readonly raw: RawRunOptions;
  readonly records: RecordSelection;
  /** Profiler library variables for the tracing decision (notrace, bypass, children, schedulers). */
  readonly library: Readonly<Record<string, string>>;
  /** Keys read but not supported, one message each (file:line: key ...). */
  readonly warnings: readonly string[];
}

export const ALL_RECORDS: RecordSelection = { totals: true, sections: Object.fromEntries(SECTIONS.map((s) => [s, true])) as Record<Section, boolean> };

/** The keys read, and under `thresholds` and `sampling` their sub-keys. */
const TOP_KEYS = [
  'output',
  'timeframe',
  'totals',
  'sizebins',
  'thresholds',
  'sampling',
  'environment',
  'notrace',
  'bypass',
  'trace-children',
  'trace-scheduler',
  'error-log',
  'nvml-library',
  ...SECTIONS,
] as const;
const THRESHOLD_KEYS = { small: 'small-threshold', large: 'large-threshold' } as const;
const SAMPLING_KEYS = { every: 'sample-every', 'max-per-second': 'sample-max-per-sec', 'min-sampled': 'min-sampled' } as const;
const SIZEBINS: Record<string, string> = { 'small-medium-large': 'small-medium-large', smallmediumlarge: 'small-medium-large', pow2: 'pow2', combined: 'combined' };

interface Located {
  readonly key: string;
  readonly value: unknown;
  readonly line: number;
  readonly node: Node | null;
}

type Yaml = typeof import('yaml');

/** Parses the file's text; `file` names it in every message. */
export function parseMistralConfig(text: string, file: string): MistralSettings {
  // Loaded only when the option is used: the YAML parser is a large part of start-up.
  const yaml = createRequire(import.meta.url)('yaml') as Yaml;
  const lineCounter = new yaml.LineCounter();
  const doc: Document = yaml.parseDocument(text, { lineCounter });
  const first = doc.errors[0];
  if (first) throw new UsageError(`${file}:${lineCounter.linePos(first.pos[0]).line}: ${first.message.split('\n')[0] ?? ''}`);
  const reader = new Reader(yaml, file, lineCounter);
  if (doc.contents === null) return { raw: {}, records: ALL_RECORDS, library: {}, warnings: [] };
  if (!yaml.isMap(doc.contents)) throw new UsageError(`${file}:1: expected a mapping of keys`);
  return reader.read(doc.contents);
}

class Reader {
  private readonly warnings: string[] = [];
  private readonly raw: Record<string, unknown> = {}; // (RawRunOptions' keys)
  /** Where each option came from, for the messages of the shared option checks. */
  private readonly origin = new Map<string, { e: Located; path: string }>();
  private readonly library: Record<string, string> = {};
  private totals = true;
  private readonly sections = { ...ALL_RECORDS.sections };

  constructor(
    private readonly yaml: Yaml,
    private readonly file: string,
    private readonly lines: LineCounter,
  ) {}

  private entries(map: YAMLMap): Located[] {
    return map.items.map((pair: Pair) => {
      const keyNode = this.yaml.isNode(pair.key) ? pair.key : null;
      const key = keyNode && this.yaml.isScalar(keyNode) ? String(keyNode.value) : String(pair.key);
      const valueNode = this.yaml.isNode(pair.value) ? pair.value : null;
      const offset = keyNode?.range?.[0] ?? valueNode?.range?.[0] ?? 0;
      return { key, value: valueNode ? (valueNode.toJSON() as unknown) : pair.value, line: this.lines.linePos(offset).line, node: valueNode };
    });
  }

  private where(e: Located, path: string): string {
    return `${this.file}:${e.line}: ${path}`;
  }

  private fail(e: Located, path: string, why: string): never {
    throw new UsageError(`${this.where(e, path)}: ${why}`);
  }

  private unsupported(e: Located, path: string): void {
    this.warnings.push(`${this.where(e, path)}: not supported by jobio, ignored`);
  }

  private bool(e: Located, path: string): boolean {
    const v = e.value;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && ['yes', 'on', 'true'].includes(v.toLowerCase())) return true;
    if (typeof v === 'string' && ['no', 'off', 'false'].includes(v.toLowerCase())) return false;
    return this.fail(e, path, `"${String(v)}" is not yes or no`);
  }

  private scalar(e: Located, path: string): string {
    if (typeof e.value === 'string' || typeof e.value === 'number') return String(e.value);
    return this.fail(e, path, 'expected a single value');
  }

  private list(e: Located, path: string): string[] {
    const items = Array.isArray(e.value) ? e.value : typeof e.value === 'string' ? e.value.split(',') : this.fail(e, path, 'expected a list');
    return items.map((item) => (typeof item === 'string' || typeof item === 'number' ? String(item).trim() : this.fail(e, path, 'list items must be single values'))).filter((s) => s !== '');
  }

  /** Programs: base names, full paths or directories (absolute). */
  private programs(e: Located, path: string): string {
    const names = this.list(e, path);
    for (const name of names) {
      if (name.includes(',')) this.fail(e, path, `"${name}": a program name cannot contain a comma`);
      if (name.includes('/') && !name.startsWith('/')) this.fail(e, path, `"${name}": give a base name, or a full path or directory starting with /`);
    }
    return names.join(',');
  }

  private set(option: string, value: unknown, e: Located, path: string): void {
    this.raw[option] = value;
    this.origin.set(option, { e, path });
  }

  /** The shared option checks (sizes, durations, counts), their messages located in the file. */
  private check(): void {
    try {
      resolveRunOptions(this.raw, {});
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      const m = /^--([a-z-]+)(?: [a-z0-9-]+(?=:))?:? (.*)$/s.exec(err.message);
      const at = m ? this.origin.get(m[1] ?? '') : undefined;
      if (at && m) this.fail(at.e, at.path, m[2] ?? '');
      throw new UsageError(`${this.file}: ${err.message}`);
    }
  }

  private sub(e: Located, path: string, keys: Record<string, string>): void {
    if (!e.node || !this.yaml.isMap(e.node)) this.fail(e, path, `expected a mapping with ${Object.keys(keys).join(', ')}`);
    for (const s of this.entries(e.node)) {
      const target = keys[s.key];
      if (target === undefined) this.unsupported(s, `${path}.${s.key}`);
      else this.set(target, this.scalar(s, `${path}.${s.key}`), s, `${path}.${s.key}`);
    }
  }

  read(map: YAMLMap): MistralSettings {
    for (const e of this.entries(map)) this.readKey(e); // (a key given twice is the parser's error)
    this.check();
    return { raw: this.raw, records: { totals: this.totals, sections: this.sections }, library: this.library, warnings: this.warnings };
  }

  private readKey(e: Located): void {
    const key = e.key as (typeof TOP_KEYS)[number];
    if (!(TOP_KEYS as readonly string[]).includes(key)) return this.unsupported(e, e.key);
    if ((SECTIONS as readonly string[]).includes(key)) {
      const on = this.bool(e, key);
      this.sections[key as Section] = on;
      if (key === 'network') this.set('network', on, e, key); // network records need the library's socket metering
      return;
    }
    switch (key) {
      case 'output':
      case 'error-log':
      case 'nvml-library':
        this.set(key, this.scalar(e, key), e, key);
        return;
      case 'timeframe':
        this.set('timeframe', e.value === false ? 'no' : this.scalar(e, key), e, key);
        return;
      case 'totals':
        this.totals = this.bool(e, key);
        return;
      case 'sizebins': {
        const mode = SIZEBINS[this.scalar(e, key).toLowerCase()];
        if (mode === undefined) this.fail(e, key, `"${String(e.value)}" must be small-medium-large, pow2 or combined`);
        this.set('size-bins', mode, e, key);
        return;
      }
      case 'thresholds':
        return this.sub(e, key, THRESHOLD_KEYS);
      case 'sampling':
        return this.sub(e, key, SAMPLING_KEYS);
      case 'environment':
        this.set('env', this.list(e, key), e, key);
        return;
      case 'notrace':
        this.library['JOBIO_EXCLUDE'] = this.programs(e, key);
        this.library['JOBIO_EXCLUDE_CHILDREN'] = '1';
        return;
      case 'bypass':
        this.library['JOBIO_BYPASS'] = this.programs(e, key);
        return;
      case 'trace-children':
        this.library['JOBIO_TRACE_CHILDREN'] = this.bool(e, key) ? '1' : '0';
        return;
      case 'trace-scheduler': {
        const v = e.value;
        const all = typeof v === 'boolean' || (typeof v === 'string' && /^(yes|no|on|off|true|false)$/i.test(v));
        const names = all ? (this.bool(e, key) ? '1' : '0') : this.programs(e, key);
        if (names.includes('/')) this.fail(e, key, 'scheduler commands are given by base name');
        this.library['JOBIO_TRACE_SCHEDULER'] = names;
        return;
      }
    }
  }
}
