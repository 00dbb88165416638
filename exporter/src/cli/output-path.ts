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

/** Expands the template; an unknown or dangling `%` is a usage error (a typo must not write a surprising file). */
export function expandOutputPath(template: string, v: OutputPathValues): string {
  return template.replace(/%(.?)/gs, (_m, c: string) => {
    switch (c) {
      case 'h':
        return v.host.split('.')[0] ?? v.host;
      case 'j':
        return v.jobid;
      case 'p':
        return String(v.pid);
      case '%':
        return '%';
      default:
        throw new UsageError(`--output: "${template}" has ${c === '' ? 'a "%" at its end' : `"%${c}"`} (known: %h short host name, %j job id, %p pid of jobio run, %% a "%")`);
    }
  });
}
