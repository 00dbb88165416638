// A real terminal for tests of full-screen programs: a private tmux server (its own socket in a
// temporary directory, no user configuration) running one command in a window of a given size.
// Keys go in with send-keys, the screen comes out with capture-pane, resize-window changes the size
// (the program gets SIGWINCH as in any terminal). The command's exit status lands in a file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireBinary } from './binaries.js';

const exec = promisify(execFile);

export interface Terminal {
  /** tmux key names (`q`, `Enter`, `Escape`, `Right`) or literal text with `literal`. */
  keys(keys: readonly string[], literal?: boolean): Promise<void>;
  /** The visible screen, one string per line, trailing spaces removed. */
  screen(): Promise<string[]>;
  /** Polls the screen until `predicate` holds; fails with the last screen after `timeoutMs`. */
  waitFor(predicate: (lines: string[]) => boolean, timeoutMs?: number, what?: string): Promise<string[]>;
  resize(width: number, height: number): Promise<void>;
  /** The command's exit status once it has ended (polled), or undefined after `timeoutMs`. */
  exitStatus(timeoutMs?: number): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startTerminal(command: readonly string[], opts: { width: number; height: number; env?: Readonly<Record<string, string>> }): Promise<Terminal> {
  const tmux = requireBinary('tmux');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-tmux-'));
  const socket = join(dir, 'socket');
  const statusFile = join(dir, 'status');
  const run = async (...args: string[]): Promise<string> => (await exec(tmux, ['-S', socket, '-f', '/dev/null', ...args], { env: { ...process.env, TERM: 'xterm-256color' } })).stdout;
  const envArgs = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // sh -c keeps the status after the command ends; the window stays until the test stops it.
  const script = `"$@"; echo $? > ${JSON.stringify(statusFile)}; sleep 3600`;
  await run('new-session', '-d', '-x', String(opts.width), '-y', String(opts.height), '-s', 'jobio', ...envArgs, 'sh', '-c', script, 'sh', ...command);
  const screen = async (): Promise<string[]> =>
    (await run('capture-pane', '-p', '-t', 'jobio'))
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => l.trimEnd());
  const terminal: Terminal = {
    keys: async (keys, literal = false) => {
      await run('send-keys', '-t', 'jobio', ...(literal ? ['-l'] : []), ...keys);
    },
    screen,
    waitFor: async (predicate, timeoutMs = 30_000, what = 'the screen') => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const lines = await screen();
        if (predicate(lines)) return lines;
        if (Date.now() > until) throw new Error(`timed out waiting for ${what}; screen:\n${lines.join('\n')}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    resize: async (width, height) => {
      await run('resize-window', '-t', 'jobio', '-x', String(width), '-y', String(height));
    },
    exitStatus: async (timeoutMs = 15_000) => {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        try {
          return Number(readFileSync(statusFile, 'utf8').trim());
        } catch {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      return undefined;
    },
    stop: async () => {
      await run('kill-server').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return terminal;
}
