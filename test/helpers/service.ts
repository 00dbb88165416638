// A server binary the tests start for real (Prometheus, VictoriaMetrics, vmalert, ...): on 127.0.0.1
// with an ephemeral port and a temporary directory, polled until its readiness path answers 200,
// stopped with SIGTERM and its directory removed. One implementation for every such service.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';

export interface Service {
  readonly url: string;
  readonly pid: number;
  readonly dir: string;
  log(): string;
  stop(): Promise<void>;
}

export interface ServiceSpec {
  /** The binary's name on PATH (its Debian package is named in the error when it is missing). */
  readonly binary: string;
  readonly aptPackage?: string;
  /** The command line, given the port to listen on and the service's own temporary directory. */
  args(port: number, dir: string): string[];
  /** A path that answers 200 once the service serves (`/-/ready`, `/health`). */
  readonly readyPath: string;
  /** Added to the service's environment (credentials a site keeps off the command line). */
  readonly env?: NodeJS.ProcessEnv;
}

/** An ephemeral port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export async function startService(spec: ServiceSpec): Promise<Service> {
  const binary = requireBinary(spec.binary, spec.aptPackage);
  const dir = mkdtempSync(join(tmpdir(), `jobio-${spec.binary}-`));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(binary, spec.args(port, dir), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...spec.env } });
  let log = '';
  child.stdout?.on('data', (c: Buffer) => (log += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString('utf8')));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`${url}${spec.readyPath}`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${spec.binary} did not become ready; log:\n${log.slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid ?? 0, dir, log: () => log, stop };
}
