// Prometheus HTTP API through Grafana's data proxy (`getBackendSrv().fetch`), so URL, TLS and auth
// are the data source's settings, never the browser's.
import { getBackendSrv, isFetchError } from '@grafana/runtime';
import { lastValueFrom } from 'rxjs';
import { toSeries, unwrap } from './parse';
import type { PromQueryData, PromResponse, Series } from './types';

export interface BuildInfo {
  version: string;
  revision?: string;
}

export class PromClient {
  constructor(private readonly baseUrl: string) {}

  private async get<T>(path: string, params: Record<string, string | number | string[]>): Promise<T> {
    try {
      const response = await lastValueFrom(
        getBackendSrv().fetch<PromResponse<T>>({
          url: `${this.baseUrl}${path}`,
          method: 'GET',
          params,
          showErrorAlert: false,
        }),
      );
      return unwrap(response.data);
    } catch (err) {
      if (isFetchError(err)) {
        const body = err.data as PromResponse<unknown> | undefined;
        const detail = body && typeof body === 'object' && 'error' in body ? body.error : err.statusText;
        throw new Error(`Prometheus ${path} failed (HTTP ${err.status}): ${detail ?? 'no detail'}`);
      }
      throw err;
    }
  }

  async queryRange(query: string, startMs: number, endMs: number, stepSeconds: number): Promise<Series[]> {
    const data = await this.get<PromQueryData>('/api/v1/query_range', {
      query,
      start: startMs / 1000,
      end: endMs / 1000,
      step: stepSeconds,
    });
    return toSeries(data);
  }

  async queryInstant(query: string, timeMs: number): Promise<Series[]> {
    const data = await this.get<PromQueryData>('/api/v1/query', { query, time: timeMs / 1000 });
    return toSeries(data);
  }

  async labelValues(label: string, match: string, startMs: number, endMs: number): Promise<string[]> {
    return this.get<string[]>(`/api/v1/label/${encodeURIComponent(label)}/values`, {
      'match[]': [match],
      start: Math.floor(startMs / 1000),
      end: Math.ceil(endMs / 1000),
    });
  }

  async buildInfo(): Promise<BuildInfo> {
    return this.get<BuildInfo>('/api/v1/status/buildinfo', {});
  }
}
