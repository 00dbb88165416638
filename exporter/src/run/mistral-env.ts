// Mistral's environment variables for `jobio run` (a site's start script sets them): the options the
// option table gives a `mistralEnv` (MISTRAL_LOG, MISTRAL_ERR_LOG, ...), and MISTRAL_VARIABLES (the
// configuration file, the working directory, the programs left out), with Mistral's meanings. They
// win over a Mistral configuration file; `--config` and the flags win over them. An empty variable
// counts as unset. Pure: an environment in, settings (or a UsageError) out.
import { resolveRunOptions, UsageError, type RawRunOptions } from './run-options.js';
import { MISTRAL_VARIABLES, RUN_OPTIONS } from './option-table.js';
import { withHostInserted } from './output-path.js';

/** Programs Mistral leaves out (with their children) unless MISTRAL_NOTRACE_PROGRAMS removes them (`-srun`). */
export const MISTRAL_DEFAULT_NOTRACE = ['blaunch', 'bsub', 'lsgrun', 'lsrun', 'pbsdsh', 'pbs_tmrsh', 'qsub', 'qrsh', 'sbatch', 'srun'] as const;

export interface MistralEnvironment {
  /** Option values by the option table's names. */
  readonly raw: RawRunOptions;
  /** MISTRAL_CONFIG: the configuration file, used when `--mistral-config` is not given. */
  readonly configFile?: string;
  /** MISTRAL_OUTPUT_DIRECTORY: where the run's private working directory is made (else $TMPDIR). */
  readonly workDirectory?: string;
  /** Profiler library variables for the programs left out. */
  readonly library: Readonly<Record<string, string>>;
  readonly warnings: readonly string[];
}

const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
};

/** A comma list of programs: base names, or full paths and directories (absolute). */
function programs(name: string, text: string): string[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const entry of entries) {
    const bare = entry.replace(/^-/, '');
    if (bare.includes('/') && !bare.startsWith('/')) throw new UsageError(`${name}: "${entry}": give a base name, or a full path or directory starting with /`);
  }
  return entries;
}

export function readMistralEnvironment(env: NodeJS.ProcessEnv): MistralEnvironment {
  const raw: RawRunOptions = {};
  for (const spec of RUN_OPTIONS) {
    const v = spec.mistralEnv !== undefined ? value(env, spec.mistralEnv) : undefined;
    if (v === undefined || spec.mistralEnv === undefined) continue;
    // the manual's special value: errors to the system log (the library then keeps quiet)
    if (spec.name === 'error-log' && v === 'syslog') continue;
    try {
      resolveRunOptions({ [spec.name]: v }, {});
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      throw new UsageError(`${spec.mistralEnv}=${v}: ${err.message.replace(/^--[a-z-]+:? ?/, '')}`);
    }
    raw[spec.name] = spec.name === 'output' ? withHostInserted(v) : v;
  }
  const library: Record<string, string> = {};
  const warnings: string[] = [];
  const notrace = value(env, MISTRAL_VARIABLES.notrace);
  if (notrace !== undefined) {
    // Mistral's list replaces jobio's launcher list: its programs are left out with their children,
    // `-name` takes a name off its default list, and the launchers it does not name are traced.
    const entries = programs(MISTRAL_VARIABLES.notrace, notrace);
    const removed = new Set(entries.filter((e) => e.startsWith('-')).map((e) => e.slice(1)));
    const added = entries.filter((e) => !e.startsWith('-'));
    const list = [...new Set([...added, ...MISTRAL_DEFAULT_NOTRACE.filter((n) => !removed.has(n))])];
    library['JOBIO_EXCLUDE'] = list.join(',');
    library['JOBIO_EXCLUDE_CHILDREN'] = '1';
    library['JOBIO_TRACE_SCHEDULER'] = '1';
  }
  const bypass = value(env, MISTRAL_VARIABLES.bypass);
  if (bypass !== undefined) {
    const entries = programs(MISTRAL_VARIABLES.bypass, bypass);
    const minus = entries.find((e) => e.startsWith('-'));
    if (minus !== undefined) throw new UsageError(`${MISTRAL_VARIABLES.bypass}: "${minus}": a program to bypass cannot start with -`);
    library['JOBIO_BYPASS'] = entries.join(',');
  }
  const disable = value(env, MISTRAL_VARIABLES.bypassDisable);
  if (disable !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(disable)) throw new UsageError(`${MISTRAL_VARIABLES.bypassDisable}: "${disable}" is not an environment variable name`);
    library['JOBIO_BYPASS_DISABLE'] = disable;
  }
  // a file of directories the library treats as mount points (JOBIO_VOLUMES)
  const volumes = value(env, MISTRAL_VARIABLES.volumes);
  if (volumes !== undefined) {
    if (!volumes.startsWith('/')) throw new UsageError(`${MISTRAL_VARIABLES.volumes}=${volumes}: give the file's absolute path (the library reads it in every process, whatever its directory)`);
    library['JOBIO_VOLUMES'] = volumes;
  }
  const configFile = value(env, MISTRAL_VARIABLES.config);
  const workDirectory = value(env, MISTRAL_VARIABLES.workDirectory);
  return { raw, library, warnings, ...(configFile !== undefined ? { configFile } : {}), ...(workDirectory !== undefined ? { workDirectory } : {}) };
}
