// Real Prometheus responses captured by scripts/capture-prometheus.mjs, served to the data source
// through a mocked `getBackendSrv().fetch` that finds the capture by path and PromQL text.
import { readFileSync, readdirSync } from 'fs';
import { join } from 'path';
import { type Observable, of, throwError } from 'rxjs';

export interface Capture {
  path: string;
  params: Record<string, string | number>;
  status: number;
  body: any;
}

export interface Manifest {
  source: string;
  prometheus: string;
  fromMs: number;
  toMs: number;
  stepSeconds: number;
  scrapeSeconds: number;
  rateWindowSeconds: number;
}

const DIR = join(__dirname, '..', '__fixtures__', 'prometheus-real');

export const manifest: Manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));

export function capture(name: string): Capture {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
}

export function allCaptures(): Map<string, Capture> {
  const out = new Map<string, Capture>();
  for (const f of readdirSync(DIR)) {
    if (f.endsWith('.json') && f !== 'manifest.json') {
      out.set(f.replace(/\.json$/, ''), capture(f.replace(/\.json$/, '')));
    }
  }
  return out;
}

function keyOf(path: string, params: Record<string, unknown>): string {
  const match = params['match[]'];
  const q = params['query'] ?? (Array.isArray(match) ? match[0] : match) ?? '';
  return `${path}\n${String(q)}`;
}

export interface FetchOptions {
  url: string;
  params?: Record<string, unknown>;
}

/**
 * A fetch mock answering from the captures. `baseUrl` is stripped from the URL; unknown requests
 * fail loudly (the PromQL the data source builds no longer matches the captures: re-run the capture).
 */
export function captureFetch(baseUrl: string) {
  const byKey = new Map<string, Capture>();
  for (const c of allCaptures().values()) {
    byKey.set(keyOf(c.path, c.params), c);
  }
  return jest.fn((options: FetchOptions): Observable<unknown> => {
    const path = options.url.startsWith(baseUrl) ? options.url.slice(baseUrl.length) : options.url;
    const c = byKey.get(keyOf(path, options.params ?? {}));
    if (!c) {
      throw new Error(`no captured response for ${path} ${JSON.stringify(options.params)}`);
    }
    if (c.status >= 400) {
      return throwError(() => ({ status: c.status, statusText: 'Bad Request', data: c.body, config: options }));
    }
    return of({ data: c.body, status: c.status, ok: true, statusText: 'OK', headers: {}, redirected: false, type: 'basic', url: options.url, config: options });
  });
}
