import { type DataFrame, type DataQueryRequest, dateTime, FieldType, type DataSourceInstanceSettings } from '@grafana/data';
import { setBackendSrv, setTemplateSrv, type BackendSrv, type TemplateSrv } from '@grafana/runtime';
import { captureFetch, capture, manifest } from '../test-utils/prom-fixtures';
import { makeTemplateSrv } from '../test-utils/replace';
import { JobioDataSource } from './datasource';
import type { JobioOptions, JobioQuery } from './types';

const BASE = '/api/datasources/proxy/uid/jobio';

function makeDs(): JobioDataSource {
  const settings = {
    id: 1,
    uid: 'jobio',
    type: 'jobio-jobio-datasource',
    name: 'jobio',
    url: BASE,
    jsonData: { scrapeInterval: `${manifest.scrapeSeconds}s`, defaultThresholdBytes: 1048576 },
    meta: {} as never,
    readOnly: false,
    access: 'proxy',
  } as unknown as DataSourceInstanceSettings<JobioOptions>;
  return new JobioDataSource(settings);
}

let fetch: ReturnType<typeof captureFetch>;
beforeEach(() => {
  fetch = captureFetch(BASE);
  setBackendSrv({ fetch } as unknown as BackendSrv);
  setTemplateSrv(makeTemplateSrv({ job: '7001', jobs: ['7001', '.*'], evil: 'x"} or vector(1) or {a="' }) as unknown as TemplateSrv);
});

function request(targets: JobioQuery[]): DataQueryRequest<JobioQuery> {
  const from = dateTime(manifest.fromMs);
  const to = dateTime(manifest.toMs);
  return {
    requestId: 't',
    interval: `${manifest.stepSeconds}s`,
    intervalMs: manifest.stepSeconds * 1000,
    range: { from, to, raw: { from, to } },
    scopedVars: {},
    targets,
    timezone: 'utc',
    app: 'dashboard',
    startTime: 0,
  };
}

const valueField = (f: DataFrame) => f.fields.find((x) => x.type === FieldType.number);

describe('query(): job I/O summary', () => {
  it('sends two instant queries through the data proxy and tags the frames', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid' }]));
    expect(fetch).toHaveBeenCalledTimes(2);
    const call = fetch.mock.calls[0]?.[0];
    expect(call?.url).toBe(`${BASE}/api/v1/query`);
    expect(call?.params?.['time']).toBe(manifest.toMs / 1000);
    const calls = res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'calls');
    const seconds = res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'seconds');
    expect(calls).toHaveLength(capture('summary-jobid-calls').body.data.result.length);
    expect(seconds).toHaveLength(capture('summary-jobid-seconds').body.data.result.length);
    const red7002 = calls.find((f: DataFrame) => valueField(f)?.labels?.['jobid'] === '7002' && valueField(f)?.labels?.['class'] === 'red');
    const raw = capture('summary-jobid-calls').body.data.result.find((r: any) => r.metric.jobid === '7002' && r.metric.class === 'red');
    expect(valueField(red7002)?.values[0]).toBeCloseTo(Number(raw.value[1]), 9);
    expect(red7002?.fields[0]?.values[0]).toBe(raw.value[0] * 1000);
  });
  it('filters by a job variable', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'mount', filters: { jobid: '$job' } }]));
    const mounts = new Set(res.data.map((f: DataFrame) => valueField(f)?.labels?.['mount']));
    expect(mounts).toEqual(new Set(['/scratch', '/home']));
  });
  it('keeps a hostile variable value inert: the real Prometheus returned nothing for it', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid', filters: { jobid: '$evil' } }]));
    const sent = String(fetch.mock.calls[0]?.[0].params?.['query']);
    expect(sent).toContain('jobid="x\\"} or vector(1) or {a=\\""');
    expect(res.data).toHaveLength(0);
  });
  it('makes regex metacharacters in multi-value variables literal: only job 7001 matched', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid', filters: { jobid: '$jobs' } }]));
    const jobs = new Set(res.data.map((f: DataFrame) => valueField(f)?.labels?.['jobid']));
    expect(jobs).toEqual(new Set(['7001']));
  });
});

describe('query(): top talkers', () => {
  it('returns a ranked table for instant queries', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'user', metric: 'bytes', limit: 10, instant: true }]));
    const frame = res.data[0] as DataFrame;
    expect(frame.fields.map((f) => f.name)).toEqual(['user', 'bytes']);
    const values = frame.fields[1]?.values as number[];
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(frame.fields[0]?.values[0]).toBe('alice');
  });
  it('returns per-step series for range queries with the aligned start and the step', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'jobid', metric: 'bytes', limit: 5, instant: false }]));
    const params = fetch.mock.calls[0]?.[0].params ?? {};
    expect(fetch.mock.calls[0]?.[0].url).toBe(`${BASE}/api/v1/query_range`);
    expect(params['step']).toBe(manifest.stepSeconds);
    expect(Number(params['start']) % manifest.stepSeconds).toBe(0);
    expect(res.data.map((f: DataFrame) => valueField(f)?.labels?.['jobid']).sort()).toEqual(['7001', '7002', '7003']);
  });
  it('ranks targets by operations', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'target', metric: 'operations', limit: 5, instant: true }]));
    expect((res.data[0] as DataFrame).fields[0]?.values[0]).toBe('scratch-MDT0000');
  });
});

describe('query(): per-job characterisation from real range results', () => {
  it('characterises job 7001 (bursty writes on two OSTs)', async () => {
    const res = await makeDs().query(
      request([{ refId: 'A', queryType: 'characterisation', filters: { jobid: '$job' }, interval: `${manifest.stepSeconds}s`, thresholdBytes: 4 * 1048576 }]),
    );
    const frame = res.data[0] as DataFrame;
    const col = (name: string) => frame.fields.find((f) => f.name === name)?.values[0];
    expect(col('jobid')).toBe('7001');
    expect(col('servers')).toBe(2);
    // Volume equals the counters' growth over the window, computed straight from the capture; a series
    // whose first sample comes after the first grid point started inside the window (credited from 0).
    const gridStart = Math.floor(manifest.fromMs / 1000 / manifest.stepSeconds) * manifest.stepSeconds;
    const growth = (name: string) =>
      capture(name).body.data.result.reduce((sum: number, s: any) => {
        const first = s.values[0][0] > gridStart ? 0 : Number(s.values[0][1]);
        return sum + Number(s.values[s.values.length - 1][1]) - first;
      }, 0);
    expect(col('total volume')).toBeCloseTo(growth('char-7001-read') + growth('char-7001-write'), 0);
    // 64 MiB/s on each of two OSTs while on: peak ≈ 128 MiB/s; 4 s on / 4 s off → I ≈ 0.5, ρ > 0.
    expect(col('peak bandwidth')).toBeGreaterThan(100 * 1048576);
    expect(col('peak bandwidth')).toBeLessThan(140 * 1048576);
    expect(col('I/O intensity')).toBeGreaterThan(0.3);
    expect(col('I/O intensity')).toBeLessThan(0.8);
    expect(col('burstiness')).toBeGreaterThan(0);
    // c = 4 MiB per 2 s interval: the steady 1 MiB/s read on OST0000 (2 MiB) stays under it, the bursts
    // do not, and both OSTs burst together, so every I/O interval has 2 servers over c: Π = 2, P = 1.
    expect(col('parallel intensity')).toBe(2);
    expect(col('parallel intensity (normalised)')).toBe(1);
  });
  it('gives one row per job for all jobs, with the unstriped job on one server', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'characterisation', interval: `${manifest.stepSeconds}s`, thresholdBytes: 1048576 }]));
    const frame = res.data[0] as DataFrame;
    const jobs = frame.fields[0]?.values as string[];
    expect(jobs).toEqual(expect.arrayContaining(['7001', '7002', '7003', '4100']));
    const row = jobs.indexOf('7002');
    const servers = frame.fields.find((f) => f.name === 'servers')?.values[row];
    const p = frame.fields.find((f) => f.name === 'parallel intensity (normalised)')?.values[row];
    expect(servers).toBe(1);
    expect(p).toBe(0);
    expect(frame.fields.find((f) => f.name === 'I/O intensity')?.values[row]).toBeCloseTo(1, 5);
  });
});

describe('query(): trend change', () => {
  it('flags the rise of OST0003 (×8) and not the steady OST0002', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'trend', metric: 'bytes', shortWindow: '4s', longWindow: '16s', changeRatio: 2 }]));
    const byTarget = new Map(res.data.map((f: DataFrame) => [f.fields[1]?.labels?.['target'], f]));
    const change = (t: string) => (byTarget.get(t)?.fields.find((f) => f.name === 'change')?.values ?? []) as number[];
    expect(change('scratch-OST0003')).toContain(1);
    expect(change('scratch-OST0002').every((c) => c === 0)).toBe(true);
    const first = byTarget.get('scratch-OST0003')?.fields[0]?.values[0] as number;
    expect(first).toBeGreaterThanOrEqual(manifest.fromMs);
  });
});

describe('query(): raw PromQL and errors', () => {
  it('runs a raw range query (the heatmap input)', async () => {
    const expr = capture('heatmap-mdt-user-rates').params['query'] as string;
    const res = await makeDs().query(request([{ refId: 'H', queryType: 'raw', expr }]));
    expect(res.data).toHaveLength(48);
    expect(valueField(res.data[0])?.labels?.['user']).toBeDefined();
  });
  it('surfaces the Prometheus error text of a bad expression', async () => {
    await expect(makeDs().query(request([{ refId: 'A', queryType: 'raw', expr: 'sum(jobio_profiler_calls_total' }]))).rejects.toThrow(
      /HTTP 400.*unclosed left parenthesis/,
    );
  });
  it('skips hidden queries', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', hide: true }]));
    expect(res.data).toHaveLength(0);
    expect(fetch).not.toHaveBeenCalled();
  });
});

describe('metricFindQuery', () => {
  const range = { from: dateTime(manifest.fromMs), to: dateTime(manifest.toMs) };
  it('lists jobs, users and targets', async () => {
    const ds = makeDs();
    expect((await ds.metricFindQuery('targets', { range })).map((v) => v.text)).toEqual(capture('labels-targets').body.data);
    expect((await ds.metricFindQuery({ kind: 'users' }, { range })).map((v) => v.text)).toContain('alice');
    const jobs = await ds.metricFindQuery('jobs', { range });
    expect(jobs.map((v) => v.value)).toEqual(expect.arrayContaining(['7001', '4100']));
    expect(fetch.mock.calls[2]?.[0].params?.['match[]']).toEqual(['{__name__=~"jobio_(lustre_jobstats|profiler)_.+"}']);
  });
  it('escapes filter values (injection attempt returns nothing from the real Prometheus)', async () => {
    const values = await makeDs().metricFindQuery('users(user=a"}) or vector(1) #)', { range });
    expect(values).toEqual([]);
  });
});

describe('testDatasource', () => {
  it('reports the Prometheus version and the jobio series count', async () => {
    fetch.mockImplementation((options) => {
      const name = options.url.endsWith('buildinfo') ? 'buildinfo' : 'health-count';
      const c = capture(name);
      return captureFetch('')({ url: c.path, params: c.params });
    });
    const res = await makeDs().testDatasource();
    expect(res.status).toBe('success');
    expect(res.message).toMatch(/Prometheus 2\.\d+\.\d+.* reachable; \d+ jobio series/);
  });
  it('reports an unreachable Prometheus as an error', async () => {
    fetch.mockImplementation(() => {
      throw Object.assign(new Error('x'), { status: 502, data: { message: 'Bad Gateway' }, statusText: 'Bad Gateway' });
    });
    const res = await makeDs().testDatasource();
    expect(res.status).toBe('error');
    expect(res.message).toMatch(/HTTP 502/);
  });
});
