// A site's Mistral configuration file (`jobio run --mistral-config mistral_config.yaml`, or
// $MISTRAL_CONFIG): the keys of Mistral's configuration table, read by the option table's `mistral`
// names (run/option-table.ts) into run options, the output plug-in section, and jobio's own extension
// keys (programs left out, thresholds). Every key is either read or named in a warning (license: not
// applicable); a value that cannot be honoured is an error with file:line:key. Pure: text in, settings
// (or a UsageError) out.
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node, Pair, YAMLMap } from 'yaml';
import { resolveRunOptions, UsageError, type RawRunOptions } from './run-options.js';
import { parseDuration } from '../util/duration.js';
import { withHostInserted } from './output-path.js';
import { RUN_OPTIONS, type RunOptionSpec } from './option-table.js';

/** The output plug-in section (`plugin`): what to start, how often to feed it, and with what arguments. */
export interface PluginSettings {
  /** As written; a relative path is relative to the configuration file's directory. */
  readonly path: string;
  /** Seconds between calls of the plug-in. */
  readonly intervalSec: number;
  /** `options` as `--name value` pairs, then `switches`, in the file's order. */
  readonly options: readonly (readonly [string, string])[];
  readonly switches: readonly string[];
  /** Records also go to the log file. */
  readonly fileOutput: boolean;
  /** Where the section is, for messages (file:line). */
  readonly where: string;
}

export interface MistralSettings {
  /** Option values by the option table's names (`--config` and the flags win over these). */
  readonly raw: RawRunOptions;
  /** Profiler library variables for the tracing decision (notrace, bypass, children, schedulers). */
  readonly library: Readonly<Record<string, string>>;
  readonly plugin?: PluginSettings;
  /** Keys read but not applicable or not known, one message each (file:line: key ...). */
  readonly warnings: readonly string[];
}

/** Each Mistral key (dotted) → the option it sets. */
const BY_MISTRAL_KEY = new Map<string, RunOptionSpec>(RUN_OPTIONS.flatMap((o) => (o.mistral ?? []).map((k) => [k, o] as const)));
/** Mappings whose sub-keys are options (`read:` → `read.enabled`, ...). */
const OPTION_SECTIONS = new Set([...BY_MISTRAL_KEY.keys()].filter((k) => k.includes('.')).map((k) => k.split('.')[0] ?? ''));
/** jobio's own keys in a Mistral-style file (the manual has environment variables for these). */
const EXTENSIONS = ['notrace', 'bypass', 'trace-children', 'trace-scheduler', 'thresholds', 'diagnosis'] as const;
const THRESHOLD_KEYS: Record<string, string> = { small: 'small-threshold', large: 'large-threshold' };
/** jobio's earlier names for Mistral's settings, named in the warning with the key that replaced them. */
const RENAMED: Record<string, string> = {
  sizebins: 'read.sized and write.sized',
  sampling: 'duration-sampling',
  environment: 'vars',
  'error-log': 'error',
  'nvml-library': 'gpu.nvidia-library-path',
  resources: 'cpu-memory.enabled',
  mountpoint: 'totals',
  mountpointsummary: 'totals',
  jobsummary: 'totals',
};
const PLUGIN_KEYS = ['path', 'interval', 'options', 'switches', 'file-output'];

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
  if (doc.contents === null) return { raw: mistralDefaults({}), library: {}, warnings: [] };
  if (!yaml.isMap(doc.contents)) throw new UsageError(`${file}:1: expected a mapping of keys`);
  return reader.read(doc.contents);
}

class Reader {
  private readonly warnings: string[] = [];
  private readonly raw: Record<string, unknown> = {}; // (RawRunOptions' keys)
  /** Where each option came from, for the messages of the shared option checks. */
  private readonly origin = new Map<string, { e: Located; path: string }>();
  private readonly library: Record<string, string> = {};
  private plugin: PluginSettings | undefined;

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

  private mapping(e: Located, path: string, keys: readonly string[]): Located[] {
    if (!e.node || !this.yaml.isMap(e.node)) this.fail(e, path, `expected a mapping with ${keys.join(', ')}`);
    return this.entries(e.node);
  }

  read(map: YAMLMap): MistralSettings {
    for (const e of this.entries(map)) this.readKey(e); // (a key given twice is the parser's error)
    const raw = mistralDefaults(this.raw);
    Object.assign(this.raw, raw);
    this.check();
    return { raw: this.raw, library: this.library, ...(this.plugin ? { plugin: this.plugin } : {}), warnings: this.warnings };
  }

  /** A key of the option table, its value converted to the option's text. */
  private option(spec: RunOptionSpec, e: Located, path: string): void {
    switch (spec.kind.type) {
      case 'bool':
        return this.set(spec.name, this.bool(e, path), e, path);
      case 'list':
        return this.set(spec.name, this.list(e, path), e, path);
      case 'timeframe':
        return this.set(spec.name, e.value === false ? 'no' : this.scalar(e, path), e, path);
      default: {
        const value = this.scalar(e, path);
        // the manual's special values: the system log for errors (the library then keeps quiet), the system NVML
        if (spec.name === 'error-log' && value === 'syslog') return;
        if (spec.name === 'nvml-library' && value === 'default') return;
        return this.set(spec.name, spec.name === 'output' ? withHostInserted(value) : value, e, path);
      }
    }
  }

  private readKey(e: Located): void {
    const top = BY_MISTRAL_KEY.get(e.key);
    if (top) return this.option(top, e, e.key);
    if (OPTION_SECTIONS.has(e.key)) {
      const keys = [...BY_MISTRAL_KEY.keys()].filter((k) => k.startsWith(`${e.key}.`)).map((k) => k.slice(e.key.length + 1));
      for (const s of this.mapping(e, e.key, keys)) {
        const path = `${e.key}.${s.key}`;
        const spec = BY_MISTRAL_KEY.get(path);
        if (spec) this.option(spec, s, path);
        else this.warnings.push(`${this.where(s, path)}: not a key of the Mistral configuration, ignored (known: ${keys.join(', ')})`);
      }
      return;
    }
    if (e.key === 'license') return void this.warnings.push(`${this.where(e, 'license')}: not applicable: jobio needs no licence, ignored`);
    if (e.key === 'plugin') return this.readPlugin(e);
    if ((EXTENSIONS as readonly string[]).includes(e.key)) return this.extension(e);
    const renamed = RENAMED[e.key];
    this.warnings.push(`${this.where(e, e.key)}: ${renamed ? `jobio's earlier name, now ${renamed} (docs/jobio-run.md)` : 'not a key of the Mistral configuration'}, ignored`);
  }

  private readPlugin(e: Located): void {
    let path: string | undefined;
    let intervalSec = 5;
    const options: [string, string][] = [];
    let switches: string[] = [];
    let fileOutput = false;
    for (const s of this.mapping(e, 'plugin', PLUGIN_KEYS)) {
      const where = `plugin.${s.key}`;
      switch (s.key) {
        case 'path':
          path = this.scalar(s, where);
          break;
        case 'interval': {
          const text = this.scalar(s, where);
          const ms = /^\s*\d+\s*$/.test(text) ? Number(text) * 1000 : this.duration(s, where, text);
          if (ms < 1000 || ms % 1000 !== 0) this.fail(s, where, `"${text}" must be a whole number of seconds, at least 1s`);
          intervalSec = ms / 1000;
          break;
        }
        case 'options':
          for (const o of this.mapping(s, where, ['NAME: value'])) options.push([o.key, o.value === null ? '' : this.scalar(o, `${where}.${o.key}`)]);
          break;
        case 'switches':
          switches = this.list(s, where);
          break;
        case 'file-output':
          fileOutput = this.bool(s, where);
          break;
        default:
          this.warnings.push(`${this.where(s, where)}: not a key of the Mistral configuration, ignored (known: ${PLUGIN_KEYS.join(', ')})`);
      }
    }
    if (path === undefined || path === '') this.fail(e, 'plugin', 'a plug-in needs its path (plugin.path)');
    this.plugin = { path, intervalSec, options, switches, fileOutput, where: this.where(e, 'plugin') };
  }

  private duration(e: Located, path: string, text: string): number {
    try {
      return parseDuration(text);
    } catch (err) {
      return this.fail(e, path, (err as Error).message);
    }
  }

  /** jobio's extensions: programs left out or bypassed, size thresholds, the diagnosis record. */
  private extension(e: Located): void {
    const key = e.key as (typeof EXTENSIONS)[number];
    switch (key) {
      case 'diagnosis':
        this.set('diagnosis', this.bool(e, key), e, key);
        return;
      case 'thresholds':
        for (const s of this.mapping(e, key, Object.keys(THRESHOLD_KEYS))) {
          const target = THRESHOLD_KEYS[s.key];
          if (target === undefined) this.warnings.push(`${this.where(s, `${key}.${s.key}`)}: not a key of jobio's thresholds (small, large), ignored`);
          else this.set(target, this.scalar(s, `${key}.${s.key}`), s, `${key}.${s.key}`);
        }
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

/** A Mistral file means Mistral's defaults where they differ from jobio's (durations off, metadata combined, ...). */
export function mistralDefaults(raw: RawRunOptions): RawRunOptions {
  const out: RawRunOptions = { ...raw };
  for (const o of RUN_OPTIONS) if (o.mistralDefault !== undefined && out[o.name] === undefined) out[o.name] = o.mistralDefault;
  return out;
}
