// A real Prometheus server (Debian package) for integration tests: started on 127.0.0.1 with a
// generated config and a temporary data directory, queried through its HTTP API, removed afterwards.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startService } from './service.js';

export { freePort };

export interface ScrapeTarget {
  readonly job: string;
  readonly address: string; // host:port
  readonly scheme?: 'http' | 'https';
  readonly metricsPath?: string;
  readonly basicAuth?: { username: string; password: string };
  readonly insecureSkipVerify?: boolean;
}

export interface RunningPrometheus {
  readonly url: string;
  query(expr: string, time?: number): Promise<PromVectorSample[]>;
  queryRaw(path: string, params: Record<string, string>): Promise<unknown>;
  /** Polls until `predicate` holds for the instant query result, or fails after `timeoutMs`. */
  waitFor(expr: string, predicate: (samples: PromVectorSample[]) => boolean, timeoutMs?: number): Promise<PromVectorSample[]>;
  log(): string;
  stop(): Promise<void>;
}

export interface PromVectorSample {
  readonly metric: Record<string, string>;
  readonly value: number;
  readonly time: number;
}

function configYaml(targets: readonly ScrapeTarget[], interval: string, extra: string): string {
  const jobs = targets
    .map((t) => {
      const lines = [
        `  - job_name: ${JSON.stringify(t.job)}`,
        `    scrape_interval: ${interval}`,
        `    scheme: ${t.scheme ?? 'http'}`,
        `    metrics_path: ${JSON.stringify(t.metricsPath ?? '/metrics')}`,
      ];
      if (t.basicAuth) lines.push('    basic_auth:', `      username: ${JSON.stringify(t.basicAuth.username)}`, `      password: ${JSON.stringify(t.basicAuth.password)}`);
      if (t.insecureSkipVerify) lines.push('    tls_config:', '      insecure_skip_verify: true');
      lines.push('    static_configs:', `      - targets: [${JSON.stringify(t.address)}]`);
      return lines.join('\n');
    })
    .join('\n');
  return `global:\n  scrape_interval: ${interval}\n  evaluation_interval: ${interval}\n${extra}scrape_configs:\n${jobs}\n`;
}

export async function startPrometheus(targets: readonly ScrapeTarget[], opts: { scrapeInterval?: string; extraConfig?: string } = {}): Promise<RunningPrometheus> {
  return startPrometheusWithConfig(configYaml(targets, opts.scrapeInterval ?? '1s', opts.extraConfig ?? ''));
}

/**
 * Starts Prometheus on a whole configuration file's text. `agent` runs it in agent mode (scrape and
 * remote_write only, no local queries: the scrapers of a sharded setup); `files` are written beside
 * the configuration first (rule files, file_sd target lists), under the given relative names.
 */
export async function startPrometheusWithConfig(
  configText: string,
  opts: { agent?: boolean; files?: Record<string, string> } = {},
): Promise<RunningPrometheus & { readonly pid: number; readonly dir: string }> {
  const service = await startService({
    binary: 'prometheus',
    readyPath: '/-/ready',
    args: (port, dir) => {
      const config = join(dir, 'prometheus.yml');
      for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), text);
      writeFileSync(config, configText);
      const storage = opts.agent ? [`--storage.agent.path=${join(dir, 'wal')}`, '--enable-feature=agent'] : [`--storage.tsdb.path=${join(dir, 'data')}`];
      return [`--config.file=${config}`, ...storage, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn', '--web.enable-lifecycle'];
    },
  });
  const { url } = service;
  const stop = (): Promise<void> => service.stop();
  const queryRaw = async (path: string, params: Record<string, string>): Promise<unknown> => {
    const res = await fetch(`${url}${path}?${new URLSearchParams(params).toString()}`);
    const body = (await res.json()) as { status: string; data?: unknown; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path} ${JSON.stringify(params)}: ${body.error ?? res.status}`);
    return body.data;
  };
  const query = async (expr: string, time?: number): Promise<PromVectorSample[]> => {
    const params: Record<string, string> = { query: expr };
    if (time !== undefined) params.time = String(time);
    const data = (await queryRaw('/api/v1/query', params)) as { resultType: string; result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    if (data.resultType !== 'vector') throw new Error(`expected a vector from ${expr}, got ${data.resultType}`);
    return data.result.map((r) => ({ metric: r.metric, time: r.value[0], value: Number(r.value[1]) }));
  };
  const waitFor = async (expr: string, predicate: (s: PromVectorSample[]) => boolean, timeoutMs = 30_000): Promise<PromVectorSample[]> => {
    const until = Date.now() + timeoutMs;
    let last: PromVectorSample[] = [];
    for (;;) {
      last = await query(expr);
      if (predicate(last)) return last;
      if (Date.now() > until) throw new Error(`timed out waiting on ${expr}; last result ${JSON.stringify(last)}; prometheus log:\n${service.log()}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  return { url, query, queryRaw, waitFor, log: () => service.log(), stop, pid: service.pid, dir: service.dir };
}
