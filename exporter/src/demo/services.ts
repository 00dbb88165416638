// The two servers the demo starts: the jobio exporter (the real `jobio exporter`, as a child process
// with production code paths, only its roots and socket pointed into the demo's directory) and, when
// installed, a private Prometheus on 127.0.0.1 loading jobio's rules.
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { delimiter, isAbsolute, join } from 'node:path';
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

/** The program's path if it is runnable (a path, or a name found in PATH), else undefined. */
export function findProgram(name: string): string | undefined {
  if (name.includes('/')) return existsSync(name) ? name : undefined;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface PrometheusSettings {
  readonly binary: string;
  readonly dir: string;
  readonly exporterAddress: string;
  readonly ruleFiles: readonly string[];
}

/** A scrape and evaluation every 2 s, so rates and alerts move within the demo's first minute. */
export function prometheusConfig(exporterAddress: string, ruleFiles: readonly string[]): string {
  const rules = ruleFiles.map((f) => `  - ${JSON.stringify(isAbsolute(f) ? f : join(process.cwd(), f))}`).join('\n');
  return `# Written by jobio demo\nglobal:\n  scrape_interval: 2s\n  evaluation_interval: 2s\nrule_files:\n${rules}\nscrape_configs:\n  - job_name: jobio\n    static_configs:\n      - targets: [${JSON.stringify(exporterAddress)}]\n`;
}

export async function startPrometheus(group: ChildGroup, s: PrometheusSettings): Promise<{ url: string; started: StartedChild }> {
  const config = join(s.dir, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(s.exporterAddress, s.ruleFiles));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = group.start('prometheus', s.binary, [`--config.file=${config}`, `--storage.tsdb.path=${join(s.dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn']);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return { url, started };
    } catch {
      // not listening yet
    }
    if (started.child.exitCode !== null || started.child.signalCode !== null || Date.now() > deadline) throw new Error(`prometheus did not become ready:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
