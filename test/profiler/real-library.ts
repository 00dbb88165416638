// Helpers for tests that run real programs under the real profiler library (native/profiler).
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireBinary } from '../helpers/binaries.js';

export const libraryPath = fileURLToPath(new URL('../../native/profiler/build/libjobio.so', import.meta.url));

/** The built library; a missing one FAILS the test (CI builds it through `npm ci`). */
export function requireProfilerLibrary(): string {
  if (!existsSync(libraryPath)) throw new Error(`${libraryPath} is not built: run \`npm run build\` (or \`make -C native/profiler\`) first`);
  return libraryPath;
}

/** The mount point holding `path` (GNU stat %m). */
export function mountOf(path: string): string {
  const r = spawnSync('stat', ['-c', '%m', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`stat -c %m ${path}: ${r.stderr}`);
  return r.stdout.trim();
}

export interface StraceCount {
  calls: number;
  bytes: number;
}

/**
 * Runs CMD under `strace -f -y` for the given syscalls and counts the successful calls whose file
 * descriptor resolves to a path accepted by `keep` (strace -y prints `write(3</tmp/x>, ...) = 4096`).
 */
export function straceCount(cmd: readonly string[], syscalls: readonly string[], keep: (path: string) => boolean, opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): StraceCount {
  const strace = requireBinary('strace');
  const log = `${opts.cwd ?? '/tmp'}/strace-${process.pid}-${Date.now()}.txt`;
  const r = spawnSync(strace, ['-f', '-y', '-qq', '-e', `trace=${syscalls.join(',')}`, '-o', log, ...cmd], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (r.status === null) throw new Error(`strace failed: ${r.stderr}`);
  const count: StraceCount = { calls: 0, bytes: 0 };
  const names = syscalls.join('|');
  // Multi-threaded traces split a call: `PID write(3</f>, ... <unfinished ...>` then `PID <... write resumed>) = 100`.
  const whole = new RegExp(`^(\\d+)\\s+(?:${names})\\(\\d+<([^>]*)>.*\\)\\s+=\\s+(-?\\d+)`);
  const started = new RegExp(`^(\\d+)\\s+(?:${names})\\(\\d+<([^>]*)>.*<unfinished \\.\\.\\.>$`);
  const resumed = new RegExp(`^(\\d+)\\s+<\\.\\.\\. (?:${names}) resumed>.*\\)\\s+=\\s+(-?\\d+)`);
  const pending = new Map<string, string>();
  const add = (path: string, ret: number): void => {
    if (!keep(path)) return;
    count.calls++;
    if (ret > 0) count.bytes += ret;
  };
  for (const line of readFileSync(log, 'utf8').split('\n')) {
    let m = whole.exec(line);
    if (m) {
      add(m[2] ?? '', Number(m[3]));
      continue;
    }
    m = started.exec(line);
    if (m) {
      pending.set(m[1] ?? '', m[2] ?? '');
      continue;
    }
    m = resumed.exec(line);
    if (m && pending.has(m[1] ?? '')) {
      add(pending.get(m[1] ?? '') ?? '', Number(m[2]));
      pending.delete(m[1] ?? '');
    }
  }
  return count;
}
