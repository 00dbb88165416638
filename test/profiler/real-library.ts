// Helpers for tests that run real programs under the real profiler library (native/profiler).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { requireBinary } from '../helpers/binaries.js';
import { readStraceCalls } from '../profiler-native/strace-oracle.js';

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
 * Runs CMD under `strace -f -ff -y` for the given syscalls and counts the successful calls whose
 * first file descriptor resolves to a path accepted by `keep` (`write(3</tmp/x>, ...) = 4096`).
 */
export function straceCount(cmd: readonly string[], syscalls: readonly string[], keep: (path: string) => boolean, opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): StraceCount {
  const strace = requireBinary('strace');
  const prefix = `${opts.cwd ?? '/tmp'}/strace-${process.pid}-${Date.now()}`;
  const r = spawnSync(strace, ['-f', '-ff', '-y', '-qq', '-e', `trace=${syscalls.join(',')}`, '-o', prefix, ...cmd], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (r.status === null) throw new Error(`strace failed: ${r.stderr}`);
  const count: StraceCount = { calls: 0, bytes: 0 };
  for (const call of readStraceCalls(prefix)) {
    if (!syscalls.includes(call.name) || !keep(call.fds[0] ?? '')) continue;
    count.calls++;
    if (call.ret > 0) count.bytes += call.ret;
  }
  return count;
}
