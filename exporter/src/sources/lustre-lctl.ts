// `lctl get_param mdt.*.job_stats obdfilter.*.job_stats`, for sites where the exporter may not read
// the pseudo-files directly. The output has `<kind>.<target>.job_stats=` headers; the parser reads it.
// lctl can hang on a sick server, so it runs with a deadline and is killed when it passes.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';

export const LCTL_ARGS = ['get_param', 'mdt.*.job_stats', 'obdfilter.*.job_stats'] as const;

export class LctlError extends Error {}

export interface LctlResult {
  readonly stdout: Buffer;
  /** lctl found neither parameter: no Lustre server targets here. */
  readonly absent: boolean;
}

/** `args` defaults to the job_stats parameters; the stats collectors pass their own patterns. */
export function runLctl(command: string, timeoutMs: number, signal?: AbortSignal, args: readonly string[] = LCTL_ARGS): Promise<LctlResult> {
  // Errors name what ran (`lctl get_param …`, `lnetctl stats show`), not always lctl.
  const what = [basename(command), ...args.slice(0, 2)].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => {
      child.kill('SIGKILL');
      finish(() => reject(new LctlError(`${what} aborted`)));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new LctlError(`${what} did not finish within ${timeoutMs} ms`)));
    }, timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString('utf8');
    });
    child.once('error', (err) => finish(() => reject(new LctlError(`cannot run ${command}: ${err.message}`))));
    child.once('close', (code) => {
      const stdout = Buffer.concat(chunks);
      // lctl exits non-zero when one pattern matches nothing (an OSS has no mdt.*): what it printed is good.
      if (stdout.length > 0 || code === 0) return finish(() => resolve({ stdout, absent: false }));
      if (/No such file|not found/i.test(stderr)) return finish(() => resolve({ stdout, absent: true }));
      finish(() => reject(new LctlError(`${what} exited with ${code}: ${stderr.trim().slice(0, 300)}`)));
    });
  });
}
