// The exporter of the demo: the real `jobio exporter` as a child process, production code paths and
// default collectors, only its roots and profiler socket pointed into the demo's directory. It listens
// on 127.0.0.1 and a port of the kernel's choice, read back from its own log line.
import type { ChildGroup, StartedChild } from './child-group.js';

/** Resolves with the first match of `pattern` in the child's output; rejects if it exits first. */
function waitForOutput(started: StartedChild, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const match = pattern.exec(started.output());
      if (match) resolve(match);
      return match !== null;
    };
    const timer = setTimeout(() => done(new Error(`${started.name} did not start within ${timeoutMs / 1000} s:\n${started.output()}`)), timeoutMs);
    const onData = (): void => {
      if (check()) done();
    };
    const onExit = (): void => done(new Error(`${started.name} exited at start:\n${started.output()}`));
    const done = (err?: Error): void => {
      clearTimeout(timer);
      started.child.stderr?.off('data', onData);
      started.child.off('exit', onExit);
      if (err) reject(err);
    };
    started.child.stderr?.on('data', onData);
    started.child.once('exit', onExit);
    if (check()) done();
  });
}

/** The flags the demo passes to `jobio exporter` (printed, so one can rerun it by hand). */
export function exporterFlags(dir: { sysfs: string; rootfs: string; socket: string }): string[] {
  return [
    '--web.listen-address=127.0.0.1:0',
    // Lustre files from the replay (/sys/fs/lustre layout); --path.procfs stays /proc, where the
    // profiler's receiver checks the processes that send to it.
    `--path.sysfs=${dir.sysfs}`,
    // /etc/passwd with the demo's users, so uids show as names.
    `--path.rootfs=${dir.rootfs}`,
    `--collector.profiler.socket=${dir.socket}`,
  ];
}

export async function startExporter(group: ChildGroup, jobioBin: string, flags: readonly string[]): Promise<{ url: string; started: StartedChild }> {
  const started = group.start('jobio exporter', process.execPath, [jobioBin, 'exporter', ...flags, '--log.format=json']);
  const match = await waitForOutput(started, /"msg":"listening".*?"address":"[^"]*:(\d+)"|"address":"[^"]*:(\d+)".*?"msg":"listening"/, 30_000);
  return { url: `http://127.0.0.1:${match[1] ?? match[2]}`, started };
}
