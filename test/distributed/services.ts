// VictoriaMetrics and vmalert (Debian `victoria-metrics`) started from the provisioning examples
// (provisioning/victoriametrics/*.default) on 127.0.0.1 with ephemeral ports and temporary data,
// plus one small client for the Prometheus querying API that both Prometheus and VictoriaMetrics serve.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/exporter.js';
import { startService, type Service } from '../helpers/service.js';

export type { Service };

/** The ARGS="…" of a provisioning defaults file, split into flags (the files use no quoting inside). */
export function provisionedArgs(file: string): string[] {
  const text = readFileSync(join(repoRoot, 'provisioning/victoriametrics', file), 'utf8');
  const m = /^ARGS="([^"]*)"$/m.exec(text);
  if (!m) throw new Error(`${file}: no ARGS="…" line`);
  return (m[1] ?? '').split(/\s+/).filter((a) => a !== '');
}

/** A user and password for HTTP basic auth. */
export interface BasicAuth {
  readonly username: string;
  readonly password: string;
}

/** What the tests set where victoria-metrics.default says a site must (its commented credential lines). */
export const VM_AUTH: BasicAuth = { username: 'jobio', password: 'test-password-0123456789' };
export const VM_DELETE_KEY = 'test-delete-key-0123456789';

/**
 * The environment a defaults file documents (its `#name=…` lines), with the given values: every name
 * given must be one the file tells a site to set, so the file and the tests cannot drift apart.
 */
export function provisionedEnv(file: string, values: Record<string, string>): Record<string, string> {
  const text = readFileSync(join(repoRoot, 'provisioning/victoriametrics', file), 'utf8');
  const documented = new Set([...text.matchAll(/^#([A-Za-z_]+)=/gm)].map((m) => m[1]));
  for (const name of Object.keys(values)) if (!documented.has(name)) throw new Error(`${file} does not document ${name}=`);
  return values;
}

/** The Authorization header of `auth`. */
export function authHeader(auth: BasicAuth): string {
  return `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
}

/** Replaces (or adds) `-name=value` flags; several values of one name replace all its occurrences. */
export function withFlags(args: readonly string[], flags: Record<string, string | readonly string[]>): string[] {
  const out = args.filter((a) => !Object.keys(flags).includes(a.replace(/^-+/, '').split('=')[0] ?? ''));
  for (const [name, value] of Object.entries(flags)) {
    for (const v of typeof value === 'string' ? [value] : value) out.push(`-${name}=${v}`);
  }
  return out;
}

/**
 * victoria-metrics (single node) with the provisioned flags, its data and listen address replaced, and
 * the credentials a site sets before opening it to other hosts (VM_AUTH, VM_DELETE_KEY).
 */
export function startVictoriaMetrics(extra: Record<string, string> = {}): Promise<Service> {
  return startService({
    binary: 'victoria-metrics',
    args: (port, dir) => withFlags(provisionedArgs('victoria-metrics.default'), { storageDataPath: join(dir, 'data'), httpListenAddr: `127.0.0.1:${port}`, loggerLevel: 'WARN', ...extra }),
    readyPath: '/health',
    env: provisionedEnv('victoria-metrics.default', { httpAuth_username: VM_AUTH.username, httpAuth_password: VM_AUTH.password, deleteAuthKey: VM_DELETE_KEY }),
  });
}

/**
 * Makes every sample VictoriaMetrics has accepted searchable now. Without it, a sample becomes visible
 * when the in-memory part holding it is flushed, about a second later, and not in the order samples
 * arrived: one series can be searchable up to a later time than another.
 */
export async function flushVictoriaMetrics(url: string, auth: BasicAuth = VM_AUTH): Promise<void> {
  const res = await fetch(`${url}/internal/force_flush`, { headers: { authorization: authHeader(auth) } });
  if (res.status !== 200) throw new Error(`${url}/internal/force_flush: HTTP ${res.status}`);
}

/**
 * vmalert with the provisioned flags, reading `ruleFiles` from and writing back into `vmUrl`.
 * There is no Alertmanager in the tests: the firing alerts are read from vmalert's own API.
 */
export function startVmalert(vmUrl: string, ruleFiles: readonly string[], extra: Record<string, string> = {}): Promise<Service> {
  return startService({
    binary: 'vmalert',
    aptPackage: 'victoria-metrics',
    args: (port) =>
      withFlags(provisionedArgs('vmalert.default'), {
        rule: ruleFiles,
        'datasource.url': vmUrl,
        'remoteWrite.url': vmUrl,
        'remoteRead.url': vmUrl,
        'notifier.url': `http://127.0.0.1:${port}/-/no-alertmanager`,
        httpListenAddr: `127.0.0.1:${port}`,
        loggerLevel: 'WARN',
        ...extra,
      }),
    readyPath: '/-/healthy',
    env: provisionedEnv(
      'vmalert.default',
      Object.fromEntries(
        ['datasource', 'remoteWrite', 'remoteRead'].flatMap((f) => [
          [`${f}_basicAuth_username`, VM_AUTH.username],
          [`${f}_basicAuth_password`, VM_AUTH.password],
        ]),
      ),
    ),
  });
}

/** Resident memory of a process in bytes (VmRSS), 0 once it is gone. */
export function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface Series {
  readonly metric: Record<string, string>;
  /** [unix seconds, value] pairs (one for an instant query). */
  readonly values: ReadonlyArray<readonly [number, number]>;
}

/** The Prometheus querying API, as Prometheus and VictoriaMetrics both serve it. */
export class PromApi {
  constructor(
    readonly url: string,
    readonly auth?: BasicAuth,
  ) {}

  private async get(path: string, params: URLSearchParams): Promise<unknown> {
    const res = await fetch(`${this.url}${path}?${params.toString()}`, this.auth ? { headers: { authorization: authHeader(this.auth) } } : {}).catch((err: unknown) => {
      throw new Error(`${this.url}${path}: ${String((err as Error).cause ?? err)}`);
    });
    const body = (await res.json()) as { status: string; data?: unknown; error?: string };
    if (body.status !== 'success') throw new Error(`${this.url}${path} ${params.toString()}: ${body.error ?? res.status}`);
    return body.data;
  }

  async instant(expr: string, time: number): Promise<Series[]> {
    const data = (await this.get('/api/v1/query', new URLSearchParams({ query: expr, time: String(time) }))) as { resultType: string; result: unknown };
    if (data.resultType === 'scalar') {
      const [t, v] = data.result as [number, string];
      return [{ metric: {}, values: [[t, Number(v)]] }];
    }
    return (data.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map((r) => ({ metric: r.metric, values: [[r.value[0], Number(r.value[1])]] }));
  }

  /** The raw samples of a range selector such as `up[10m]` at `time`. */
  async samples(expr: string, time: number): Promise<Series[]> {
    const data = (await this.get('/api/v1/query', new URLSearchParams({ query: expr, time: String(time) }))) as { resultType: string; result: unknown };
    if (data.resultType !== 'matrix') throw new Error(`expected a matrix from ${expr}, got ${data.resultType}`);
    return (data.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>).map((r) => ({ metric: r.metric, values: r.values.map(([t, v]) => [t, Number(v)] as const) }));
  }

  async range(expr: string, start: number, end: number, step: number): Promise<Series[]> {
    const data = (await this.get('/api/v1/query_range', new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(step) }))) as {
      result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;
    };
    return data.result.map((r) => ({ metric: r.metric, values: r.values.map(([t, v]) => [t, Number(v)] as const) }));
  }

  async labelValues(label: string, match: string, start: number, end: number): Promise<string[]> {
    const params = new URLSearchParams({ start: String(start), end: String(end) });
    params.append('match[]', match);
    const data = (await this.get(`/api/v1/label/${encodeURIComponent(label)}/values`, params)) as string[];
    return [...data].sort();
  }
}
