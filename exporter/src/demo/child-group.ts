// The processes the demo starts, each in its own process group, so that stopping one also stops
// whatever it started (a job's shell loop and its dd), and so that a Ctrl-C in the terminal reaches
// only the demo, which then stops everything in order.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface StartedChild {
  readonly name: string;
  readonly child: ChildProcess;
  /** The last 64 KiB of its stderr (stdout too, when piped), for the report of an unexpected exit. */
  output(): string;
}

const KEEP = 64 * 1024;

export class ChildGroup {
  private readonly children: StartedChild[] = [];

  /** Starts `file` in a new process group; stdout/stderr are kept (not shown) unless `stdio` says otherwise. */
  start(name: string, file: string, args: readonly string[], options: SpawnOptions = {}): StartedChild {
    const child = spawn(file, [...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options, detached: true });
    let text = '';
    const keep = (chunk: Buffer): void => {
      text = (text + chunk.toString('utf8')).slice(-KEEP);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    // Spawn failures (ENOENT) surface as 'error'; without a listener they would crash the demo.
    child.on('error', (err) => keep(Buffer.from(`${err.message}\n`)));
    const started = { name, child, output: () => text };
    this.children.push(started);
    return started;
  }

  get pids(): number[] {
    return this.children.map((c) => c.child.pid).filter((p): p is number => p !== undefined);
  }

  /**
   * Last resort when the demo's process ends without stopAll() (an uncaught error): SIGKILL, at once
   * and synchronously (a process 'exit' handler cannot wait), to every group whose leader still runs.
   */
  killNow(): void {
    for (const c of this.children) if (c.child.pid !== undefined && c.child.exitCode === null && c.child.signalCode === null) signalGroup(c.child.pid, 'SIGKILL');
  }

  /** SIGTERM to each group, newest first; SIGKILL to what is left after `graceMs`. */
  async stopAll(graceMs = 5000): Promise<void> {
    const running = [...this.children].reverse().filter((c) => c.child.pid !== undefined);
    const exited = running.map((c) => (c.child.exitCode !== null || c.child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => c.child.once('exit', () => resolve()))));
    for (const c of running) if (c.child.pid !== undefined) signalGroup(c.child.pid, 'SIGTERM');
    const timer = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), graceMs).unref());
    if ((await Promise.race([Promise.all(exited), timer])) !== 'late') return;
    // Only groups whose leader is still there: a pid that exited may already belong to someone else.
    for (const c of running) if (c.child.pid !== undefined && c.child.exitCode === null && c.child.signalCode === null) signalGroup(c.child.pid, 'SIGKILL');
    await Promise.race([Promise.all(exited), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
