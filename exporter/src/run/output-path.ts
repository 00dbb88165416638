// The `--output` file name of `jobio run` as a template, so every node (and every launcher) of a
// multi-node job writes its own file: %h short host name, %j job id, %p pid of `jobio run`, %% a '%'.
import { UsageError } from './run-options.js';

export interface OutputPathValues {
  /** The host name up to its first dot. */
  readonly host: string;
  /** '' outside a batch job. */
  readonly jobid: string;
  readonly pid: number;
}

/**
 * A value put into the name must stay inside the directory the template names: no '/', no NUL, and
 * not a whole '.' or '..' (a job id comes from the environment, where anyone can write `../x`).
 */
function namePart(code: string, value: string): string {
  if (value.includes('/') || value.includes('\0') || value === '.' || value === '..')
    throw new UsageError(`--output: %${code} would be ${JSON.stringify(value)}, which is no file name part (a "/" in it, or "." or "..")`);
  return value;
}

/** Expands the template; an unknown or dangling `%` is a usage error (a typo must not write a surprising file). */
export function expandOutputPath(template: string, v: OutputPathValues): string {
  return template.replace(/%(.?)/gs, (_m, c: string) => {
    switch (c) {
      case 'h':
        return namePart('h', v.host.split('.')[0] ?? v.host);
      case 'j':
        return namePart('j', v.jobid);
      case 'p':
        return String(v.pid);
      case '%':
        return '%';
      default:
        throw new UsageError(`--output: "${template}" has ${c === '' ? 'a "%" at its end' : `"%${c}"`} (known: %h short host name, %j job id, %p pid of jobio run, %% a "%")`);
    }
  });
}

/**
 * A log path from Mistral's settings (`output`, $MISTRAL_LOG) always names the host, as under Mistral:
 * without a `%h` one is inserted before a final `.log`, or at the end (`/scratch/io.log` →
 * `/scratch/io-%h.log`), so runs on several nodes never write one file.
 */
export function withHostInserted(path: string): string {
  if (/(^|[^%])(%%)*%h/.test(path)) return path;
  return path.endsWith('.log') ? `${path.slice(0, -'.log'.length)}-%h.log` : `${path}-%h`;
}
