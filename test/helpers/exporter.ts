// Starts the real, built `jobio exporter` (bin/jobio.js) as a child process on 127.0.0.1 and an
// ephemeral port, for end-to-end tests. The port is read back from the exporter's own log line.
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const jobioBin = fileURLToPath(new URL('../../bin/jobio.js', import.meta.url));

export interface RunningExporter {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the exporter wrote to stderr so far (its log). */
  log(): string;
  stop(): Promise<number | null>;
}

/**
 * Spawns `jobio exporter ARGS --web.listen-address=127.0.0.1:0` and resolves once it listens. `port`
 * listens there instead (an exporter restarted where its scrapers look for it).
 */
export async function startExporter(args: readonly string[], opts: { scheme?: 'http' | 'https'; env?: NodeJS.ProcessEnv; port?: number } = {}): Promise<RunningExporter> {
  const child = spawn(process.execPath, [jobioBin, 'exporter', `--web.listen-address=127.0.0.1:${opts.port ?? 0}`, '--log.format=json', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  let stderr = '';
  const port = await new Promise<number>((resolvePort, reject) => {
    // Generous: the distributed tests start several exporters at once, and a loaded 2-core machine
    // has been seen to need more than 20 s for one to listen.
    const timer = setTimeout(() => reject(new Error(`exporter did not start within 60 s; log:\n${stderr}`)), 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /"msg":"listening".*?"address":"[^"]*:(\d+)"|"address":"[^"]*:(\d+)".*?"msg":"listening"/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolvePort(Number(match[1] ?? match[2]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exporter exited with ${code} before listening; log:\n${stderr}`));
    });
  });
  const scheme = opts.scheme ?? 'http';
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    child,
    log: () => stderr,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/**
 * An exporter of the job_stats under `lustre` (--path.lustre) alone, every job exported (up to 100,000)
 * and no user look-ups: the large expositions of the format and memory measurements.
 */
export function startJobStatsExporter(lustre: string, extra: readonly string[] = []): Promise<RunningExporter> {
  return startExporter([
    '--collector.disable-defaults',
    '--collector.lustre_jobstats',
    '--collector.lustre_jobstats.max-jobs=100000',
    '--no-collector.lustre_jobstats.getent',
    `--path.lustre=${lustre}`,
    ...extra,
  ]);
}

/** Runs `jobio ARGS` to completion and returns its exit code and output. */
export async function runJobio(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [jobioBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export async function scrape(url: string, init?: RequestInit): Promise<string> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return res.text();
}

/**
 * GET with exactly these request headers, the body as the exporter sent it: fetch would ask for and
 * undo gzip itself, and the tests of the encoding need the bytes and headers on the wire.
 */
export function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolveGet, reject) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolveGet({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
