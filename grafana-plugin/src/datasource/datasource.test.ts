import { type DataFrame, type DataQueryRequest, dateTime, FieldType, type DataSourceInstanceSettings } from '@grafana/data';
import { setBackendSrv, setTemplateSrv, type BackendSrv, type TemplateSrv } from '@grafana/runtime';
import { captureFetch, capture, manifest, type FetchOptions } from '../test-utils/prom-fixtures';
import { makeTemplateSrv } from '../test-utils/replace';
import { characteriseRaw as characteriseRawMatrices, type RawCharacter } from '../../../test/helpers/characterisation-oracle.js';
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

/** Shares of red, yellow and green per job, straight from a captured summary vector (`sum by (jobid, user, class)`). */
function classShares(name: string): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of capture(name).body.data.result) {
    const by = out.get(r.metric.jobid) ?? { red: 0, yellow: 0, green: 0 };
    by[r.metric.class] = Number(r.value[1]);
    out.set(r.metric.jobid, by);
  }
  for (const by of out.values()) {
    const total = (by['red'] ?? 0) + (by['yellow'] ?? 0) + (by['green'] ?? 0);
    for (const k of Object.keys(by)) {
      by[k] = (by[k] ?? 0) / total;
    }
  }
  return out;
}

/** The same shares from the frames query() returned. */
function frameShares(frames: DataFrame[], metric: 'calls' | 'seconds', jobid: string): Record<string, number> {
  const by: Record<string, number> = { red: 0, yellow: 0, green: 0 };
  for (const f of frames.filter((x) => x.meta?.custom?.['jobioMetric'] === metric)) {
    const v = valueField(f);
    if (v?.labels?.['jobid'] === jobid) {
      by[v.labels['class'] as string] = Number(v.values[0]);
    }
  }
  const total = (by['red'] ?? 0) + (by['yellow'] ?? 0) + (by['green'] ?? 0);
  return Object.fromEntries(Object.entries(by).map(([k, x]) => [k, x / total]));
}

describe('query(): job I/O summary (real programs under the profiler)', () => {
  it('sends five instant queries (calls, seconds, bytes, reason calls and seconds) through the data proxy and tags the frames', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid' }]));
    expect(fetch).toHaveBeenCalledTimes(5);
    const call = fetch.mock.calls[0]?.[0];
    expect(call?.url).toBe(`${BASE}/api/v1/query`);
    expect(call?.params?.['time']).toBe(manifest.toMs / 1000);
    const calls = res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'calls');
    const seconds = res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'seconds');
    expect(calls).toHaveLength(capture('summary-jobid-calls').body.data.result.length);
    expect(seconds).toHaveLength(capture('summary-jobid-seconds').body.data.result.length);
    expect(new Set(calls.map((f: DataFrame) => valueField(f)?.labels?.['jobid']))).toEqual(new Set(['7001', '7002', '7003', '7004', '7005']));
    const red7002 = calls.find((f: DataFrame) => valueField(f)?.labels?.['jobid'] === '7002' && valueField(f)?.labels?.['class'] === 'red');
    const raw = capture('summary-jobid-calls').body.data.result.find((r: any) => r.metric.jobid === '7002' && r.metric.class === 'red');
    expect(valueField(red7002)?.values[0]).toBeCloseTo(Number(raw.value[1]), 9);
    expect(red7002?.fields[0]?.values[0]).toBe(raw.value[0] * 1000);
    const tagged = (m: string) => res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === m);
    expect(
      tagged('bytes')
        .map((f: DataFrame) => valueField(f)?.labels?.['user'])
        .sort(),
    ).toEqual(['alice', 'bob', 'carol', 'dave', 'erin']);
    expect(tagged('reasonSeconds')).toHaveLength(capture('summary-jobid-reason-seconds').body.data.result.length);
    expect(tagged('reasonCalls').find((f: DataFrame) => valueField(f)?.labels?.['jobid'] === '7002')?.fields[1]?.labels?.['reason']).toBe('small_write');
  });
  it('gives every job its user in the calls and seconds frames too, not only in the volume frames (a job with no byte series keeps its user)', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid' }]));
    const usersOf = (metric: string, j: string) =>
      new Set(
        res.data
          .filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === metric)
          .map((f: DataFrame) => valueField(f)?.labels)
          .filter((l: any) => l?.['jobid'] === j)
          .map((l: any) => l['user']),
      );
    const runs = (manifest as unknown as { profilerRuns: Record<string, { user: string }> }).profilerRuns;
    expect(Object.keys(runs)).toEqual(['7001', '7002', '7003', '7004', '7005']);
    for (const [j, { user }] of Object.entries(runs)) {
      expect([j, [...usersOf('calls', j)]]).toEqual([j, [user]]);
      expect([j, [...usersOf('seconds', j)]]).toEqual([j, [user]]);
    }
    expect(runs['7004']?.user).toBe('dave');
  });
  it("by mount for job 7001: the real red reasons per mount (dd's zero seek on /dev/shm, the second dd's unused stat on /) and bytes per mount", async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'mount', filters: { jobid: '$job' } }]));
    const reasons = (metric: string) =>
      res.data
        .filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === metric)
        .map((f: DataFrame) => {
          const v = valueField(f);
          return [v?.labels?.['mount'], v?.labels?.['class'], v?.labels?.['reason'], v?.values[0]];
        })
        .sort();
    const raw = (name: string) =>
      capture(name)
        .body.data.result.map((r: any) => [r.metric.mount, r.metric.class, r.metric.reason, Number(r.value[1])])
        .sort();
    expect(reasons('reasonCalls')).toEqual(raw('summary-mount-7001-reason-calls'));
    expect(reasons('reasonSeconds')).toEqual(raw('summary-mount-7001-reason-seconds'));
    expect(reasons('reasonCalls').map((r) => r.slice(0, 3))).toEqual([
      ['/', 'red', 'stat_unused'],
      ['/dev/shm', 'red', 'zero_seek'],
    ]);
    const bytes = res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'bytes');
    expect(bytes.map((f: DataFrame) => valueField(f)?.labels?.['mount']).sort()).toEqual(['/', '/dev/shm']);
  });
  it('returns no reason frames when the exporter has no reason breakdown (the empty vector Prometheus answers)', async () => {
    // An exporter without the reason counters: Prometheus answers the reason queries with an empty
    // vector. That answer is the real one it gave to a reason query that matched no series.
    const empty = capture('injection-summary-jobid-quote-reason-calls');
    expect(empty.body.data.result).toEqual([]);
    const answer = fetch.getMockImplementation() as (o: FetchOptions) => unknown;
    fetch.mockImplementation((o: FetchOptions) => {
      const q = String(o.params?.['query'] ?? '');
      return answer(q.includes('_reason_') ? { ...o, params: { ...o.params, query: empty.params['query'] } } : o) as never;
    });
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'mount', filters: { jobid: '$job' } }]));
    expect(res.data.filter((f: DataFrame) => String(f.meta?.custom?.['jobioMetric']).startsWith('reason'))).toHaveLength(0);
    expect(res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'bytes')).toHaveLength(2);
    expect(res.data.filter((f: DataFrame) => f.meta?.custom?.['jobioMetric'] === 'calls')).toHaveLength(capture('summary-mount-7001-calls').body.data.result.length);
  });
  it('shows what the programs really did: dd bs=512 red, dd bs=1M green, stats of unopened files red, stat+seek yellow', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'jobid' }]));
    const calls = (j: string) => frameShares(res.data, 'calls', j);
    const time = (j: string) => frameShares(res.data, 'seconds', j);
    // The frames carry exactly the captured figures.
    for (const j of ['7001', '7002', '7003', '7004', '7005']) {
      expect(calls(j)['red']).toBeCloseTo(classShares('summary-jobid-calls').get(j)?.['red'] ?? NaN, 9);
      expect(time(j)['green']).toBeCloseTo(classShares('summary-jobid-seconds').get(j)?.['green'] ?? NaN, 9);
    }
    // 7002: dd bs=512, every write below the 32 KiB small threshold.
    expect(calls('7002')['red']).toBeGreaterThan(0.99);
    expect(time('7002')['red']).toBeGreaterThan(0.5);
    // 7001: dd bs=1M; 7005: cp of a 16 MiB file.
    expect(calls('7001')['green']).toBeGreaterThan(0.9);
    expect(time('7001')['green']).toBeGreaterThan(0.9);
    expect(time('7005')['green']).toBeGreaterThan(0.9);
    // 7004: python3 stats files it never opens (and missing ones).
    expect(calls('7004')['red']).toBeGreaterThan(0.9);
    expect(time('7004')['red']).toBeGreaterThan(0.9);
    // 7003: python3 stats, opens, seeks forward 200 times, reads 64 KiB: yellow calls and time.
    expect(calls('7003')['yellow']).toBeGreaterThan(0.9);
    expect(time('7003')['yellow']).toBeGreaterThan(0.5);
  });
  it('filters by a job variable: job 7001 read on /dev/shm and wrote on /', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'summary', groupBy: 'mount', filters: { jobid: '$job' } }]));
    const mounts = new Set(res.data.map((f: DataFrame) => valueField(f)?.labels?.['mount']));
    expect(mounts).toEqual(new Set(['/', '/dev/shm']));
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

describe('query(): top talkers (real job_stats through the exporter)', () => {
  it('returns a ranked table for instant queries', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'user', metric: 'bytes', limit: 10, instant: true }]));
    const frame = res.data[0] as DataFrame;
    expect(frame.fields.map((f) => f.name)).toEqual(['user', 'bytes']);
    const values = frame.fields[1]?.values as number[];
    expect(values).toHaveLength(10);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    const raw = capture('top-users-bytes-instant').body.data.result.map((r: any) => [r.metric.user, Number(r.value[1])]);
    raw.sort((a: [string, number], b: [string, number]) => b[1] - a[1]);
    expect(frame.fields[0]?.values).toEqual(raw.map((r: [string, number]) => r[0]));
    // alice's job 7001 writes 200 MiB/s on four OSTs half of the time; carol reads 304 MiB/s.
    expect(frame.fields[0]?.values.slice(0, 2)).toEqual(['alice', 'carol']);
  });
  it('returns per-step series for range queries with the aligned start and the step', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'jobid', metric: 'bytes', limit: 5, instant: false }]));
    const params = fetch.mock.calls[0]?.[0].params ?? {};
    expect(fetch.mock.calls[0]?.[0].url).toBe(`${BASE}/api/v1/query_range`);
    expect(params['step']).toBe(manifest.stepSeconds);
    expect(Number(params['start']) % manifest.stepSeconds).toBe(0);
    const jobs = res.data.map((f: DataFrame) => valueField(f)?.labels?.['jobid']);
    expect(jobs).toEqual(expect.arrayContaining(['7001', '7003', '7004']));
    // topk per step: at every step at most 5 jobs have a value.
    const perStep = new Map<number, number>();
    for (const f of res.data as DataFrame[]) {
      (f.fields[0]?.values as number[]).forEach((t, i) => {
        if (valueField(f)?.values[i] != null) {
          perStep.set(t, (perStep.get(t) ?? 0) + 1);
        }
      });
    }
    expect(Math.max(...perStep.values())).toBeLessThanOrEqual(5);
  });
  it('ranks targets by operations: the MDT of the metadata storm first', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'target', metric: 'operations', limit: 5, instant: true }]));
    const frame = res.data[0] as DataFrame;
    expect(frame.fields[0]?.values[0]).toBe('scratch-MDT0000');
    expect(frame.fields[0]?.values).toHaveLength(5);
  });
  it('puts the storm job (7010, mallory) on top of the MDT talkers, far ahead', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'topTalkers', dimension: 'jobid', metric: 'operations', limit: 10, instant: true, filters: { target: 'scratch-MDT0000' } }]));
    const frame = res.data[0] as DataFrame;
    expect(frame.fields[0]?.values[0]).toBe('7010');
    const ops = frame.fields[1]?.values as number[];
    expect(ops[0]).toBeGreaterThan(5 * (ops[1] ?? Infinity));
  });
});

// The second implementation of the characterisation (test/helpers/characterisation-oracle.ts) on the raw captured matrices,
// over the grid the data source asks for.
function characteriseRaw(jobid: string, names: string[], c: number): RawCharacter {
  const step = manifest.stepSeconds;
  const start = Math.floor(manifest.fromMs / 1000 / step) * step;
  return characteriseRawMatrices(
    names.map((name) => capture(name).body.data.result),
    jobid,
    { start, end: manifest.toMs / 1000, step },
    c,
  );
}

describe('query(): per-job characterisation from real range results', () => {
  const MiB = 1048576;
  const col = (frame: DataFrame, name: string, row = 0) => frame.fields.find((f) => f.name === name)?.values[row];
  it('characterises job 7001 (16 MiB writes striped over three OSTs, 6 s on / 6 s off)', async () => {
    const c = 64 * MiB;
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'characterisation', filters: { jobid: '$job' }, interval: `${manifest.stepSeconds}s`, thresholdBytes: c }]));
    const frame = res.data[0] as DataFrame;
    const expected = characteriseRaw('7001', ['char-7001-read', 'char-7001-write'], c);
    expect(col(frame, 'jobid')).toBe('7001');
    expect(col(frame, 'servers')).toBe(3);
    expect(col(frame, 'total volume')).toBeCloseTo(expected.total, 0);
    expect(col(frame, 'peak bandwidth')).toBeCloseTo(expected.peak, 3);
    expect(col(frame, 'I/O intensity')).toBeCloseTo(expected.intensity, 12);
    expect(col(frame, 'burstiness')).toBeCloseTo(expected.burstiness, 12);
    expect(col(frame, 'busy servers per I/O interval')).toBeCloseTo(expected.parallel, 12);
    expect(col(frame, 'parallel intensity')).toBeCloseTo(expected.normalised, 12);
    // What the workload was: bursts of 3 × 200 MiB/s on three OSTs together, idle about half of the
    // time (an interval that catches any part of a burst moves more than c, so "on" runs are longer).
    expect(col(frame, 'peak bandwidth')).toBeGreaterThan(450 * MiB);
    expect(col(frame, 'peak bandwidth')).toBeLessThan(750 * MiB);
    expect(col(frame, 'I/O intensity')).toBeGreaterThan(0.35);
    expect(col(frame, 'I/O intensity')).toBeLessThan(0.8);
    expect(col(frame, 'burstiness')).toBeGreaterThan(0);
    expect(col(frame, 'parallel intensity')).toBeGreaterThan(0.9);
  });
  it('characterises job 7003, which reads almost only from OST0002: one server over c until the workload stops, P = 0', async () => {
    const c = 64 * MiB;
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'characterisation', filters: { jobid: '7003' }, interval: `${manifest.stepSeconds}s`, thresholdBytes: c }]));
    const frame = res.data[0] as DataFrame;
    const expected = characteriseRaw('7003', ['char-7003-read', 'char-7003-write'], c);
    const growth = (target: string) => {
      const s = capture('char-7003-read').body.data.result.find((r: any) => r.metric.target === target);
      return Number(s.values[s.values.length - 1][1]) - Number(s.values[0][1]);
    };
    expect(growth('scratch-OST0002') / (growth('scratch-OST0002') + growth('scratch-OST0000'))).toBeGreaterThan(0.95);
    expect(col(frame, 'servers')).toBe(2);
    expect(col(frame, 'total volume')).toBeCloseTo(expected.total, 0);
    // Busy in every interval but the last: the scenario stops rewriting job_stats when it ends, and the
    // capture waits 2.5 s more for the profiler's last frames, so the range's last 2 s moved nothing.
    const reads = capture('char-7003-read')
      .body.data.result.find((r: any) => r.metric.target === 'scratch-OST0002')
      .values.map((v: [number, string]) => Number(v[1]));
    const moved = reads.slice(1).map((x: number, i: number) => x - reads[i]);
    expect(moved.map((d: number) => d > c)).toEqual([...new Array(moved.length - 1).fill(true), false]);
    expect(col(frame, 'I/O intensity')).toBeCloseTo(expected.intensity, 12);
    expect(col(frame, 'I/O intensity')).toBeCloseTo((moved.length - 1) / moved.length, 12);
    expect(col(frame, 'burstiness')).toBe(0);
    expect(col(frame, 'busy servers per I/O interval')).toBe(1);
    expect(col(frame, 'parallel intensity')).toBe(0);
  });
  it('gives one row per job for all jobs, each matching the independent computation', async () => {
    const c = 1048576;
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'characterisation', interval: `${manifest.stepSeconds}s`, thresholdBytes: c }]));
    const frame = res.data[0] as DataFrame;
    const jobs = frame.fields[0]?.values as string[];
    expect(jobs).toEqual(expect.arrayContaining(['7001', '7002', '7003', '7004', '7005', '7010', '6100']));
    expect(jobs.length).toBeGreaterThanOrEqual(40);
    jobs.forEach((jobid, row) => {
      const expected = characteriseRaw(jobid, ['char-all-read', 'char-all-write'], c);
      const bytesServers = Number(col(frame, 'servers', row));
      expect([jobid, bytesServers]).toEqual([jobid, expected.servers]);
      expect(col(frame, 'total volume', row)).toBeCloseTo(expected.total, 0);
      expect(col(frame, 'I/O intensity', row)).toBeCloseTo(expected.intensity, 12);
      expect(col(frame, 'burstiness', row)).toBeCloseTo(expected.burstiness, 12);
      expect(col(frame, 'parallel intensity', row)).toBeCloseTo(expected.normalised, 12);
    });
    // Job 7002 (4 KiB writes to OST0001 only): one server.
    const bob = jobs.indexOf('7002');
    expect(col(frame, 'servers', bob)).toBe(1);
    expect(col(frame, 'parallel intensity', bob)).toBe(0);
  });
});

describe('query(): the population of jobs from real range results', () => {
  const interval = `${manifest.stepSeconds}s`;
  const nearestRank = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.ceil(q * values.length) - 1];
  it('gives the slides’ table: per direction and c, the value 80 % of the jobs are at or below, as computed from the raw matrices', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'population', populationView: 'percentiles', interval }]));
    const frame = res.data[0] as DataFrame;
    expect(frame.fields.map((f) => f.name)).toEqual(['quantity', 'read, c = 0 B', 'read, c = 128 KiB', 'read, c = 1 MiB', 'write, c = 0 B', 'write, c = 128 KiB', 'write, c = 1 MiB']);
    expect(frame.fields[0]?.values).toEqual(['I/O intensity I', 'burstiness ρ', 'parallel intensity P', 'jobs']);
    const jobids: string[] = [...new Set<string>(['char-all-read', 'char-all-write'].flatMap((n) => capture(n).body.data.result.map((r: any) => r.metric.jobid as string)))];
    for (const [d, name] of [
      ['read', 'char-all-read'],
      ['write', 'char-all-write'],
    ] as const) {
      for (const [c, label] of [
        [0, '0 B'],
        [131072, '128 KiB'],
        [1048576, '1 MiB'],
      ] as const) {
        const own = jobids.map((j) => characteriseRaw(j, [name], c)).filter((x) => x.servers > 0);
        const column = frame.fields.find((f) => f.name === `${d}, c = ${label}`)?.values as number[];
        expect([d, c, ...column]).toEqual([
          d,
          c,
          expect.closeTo(
            nearestRank(
              own.map((x) => x.intensity),
              0.8,
            ) ?? NaN,
            12,
          ),
          expect.closeTo(
            nearestRank(
              own.map((x) => x.burstiness),
              0.8,
            ) ?? NaN,
            12,
          ),
          expect.closeTo(
            nearestRank(
              own.map((x) => x.normalised),
              0.8,
            ) ?? NaN,
            12,
          ),
          own.length,
        ]);
      }
    }
  });
  it('filtered to one job, the table is that job’s own I, ρ, P (job 7001: striped bursty writes, hardly a read)', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'population', populationView: 'percentiles', filters: { jobid: '$job' }, interval, thresholdsBytes: [67108864] }]));
    const frame = res.data[0] as DataFrame;
    const write = characteriseRaw('7001', ['char-7001-write'], 67108864);
    const column = frame.fields.find((f) => f.name === 'write, c = 64 MiB')?.values;
    expect(column).toEqual([expect.closeTo(write.intensity, 12), expect.closeTo(write.burstiness, 12), expect.closeTo(write.normalised, 12), 1]);
    expect(write.normalised).toBeGreaterThan(0.9);
  });
  it('counts jobs by written volume per power of two, cumulative share reaching 1', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'population', populationView: 'volume', interval }]));
    const frame = res.data[0] as DataFrame;
    const from = frame.fields.find((f) => f.name === 'from')?.values as number[];
    const counts = frame.fields.find((f) => f.name === 'write jobs')?.values as number[];
    const cumulative = frame.fields.find((f) => f.name === 'write cumulative')?.values as number[];
    const jobids: string[] = [...new Set<string>(capture('char-all-write').body.data.result.map((r: any) => r.metric.jobid as string))];
    const volumes = jobids.map((j) => characteriseRaw(j, ['char-all-write'], 0).total).filter((v) => v > 0);
    from.forEach((f, i) => expect([f, counts[i]]).toEqual([f, volumes.filter((v) => v >= f && v < 2 * f).length]));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(volumes.length);
    expect(cumulative[cumulative.length - 1]).toBe(1);
  });
});

describe('query(): trend change', () => {
  it('flags the rise of job 7004 on OST0003 (×8 of its own writes, ×3 of the target), nothing on OST0002 until the workload stops', async () => {
    const res = await makeDs().query(request([{ refId: 'A', queryType: 'trend', metric: 'bytes', shortWindow: '4s', longWindow: '16s', changeRatio: 1.5 }]));
    const byTarget = new Map(res.data.map((f: DataFrame) => [f.fields[1]?.labels?.['target'], f]));
    expect([...byTarget.keys()].sort()).toEqual(['scratch-OST0000', 'scratch-OST0001', 'scratch-OST0002', 'scratch-OST0003']);
    const field = (t: string, name: string) => (byTarget.get(t)?.fields.find((f) => f.name === name)?.values ?? []) as number[];
    const times = (t: string) => (byTarget.get(t)?.fields[0]?.values ?? []) as number[];
    // When the rise happened, from the raw captured rates: the first step above twice the first rate.
    const raw = capture('trend-bytes-by-target').body.data.result.find((r: any) => r.metric.target === 'scratch-OST0003');
    const rates = raw.values.map(([t, v]: [number, string]) => [t * 1000, Number(v)] as const);
    const baseline = rates[Math.floor(rates.length / 4)][1];
    const riseMs = rates.find(([, v]: readonly [number, number]) => v > 2 * baseline)?.[0] as number;
    expect(riseMs).toBeGreaterThan(manifest.fromMs);
    const flagged = times('scratch-OST0003').filter((_, i) => field('scratch-OST0003', 'change')[i] === 1);
    expect(flagged.length).toBeGreaterThan(0);
    expect(Math.min(...flagged)).toBeGreaterThanOrEqual(riseMs);
    expect(Math.min(...flagged)).toBeLessThanOrEqual(riseMs + 8000);
    // OST0002 (7003's steady 300 MiB/s, 7001's bursts) is steady while the workload runs. The range's
    // last point, 2.5 s after the scenario stopped, is a fall: its 4 s rate half covers the idle end.
    const steady = field('scratch-OST0002', 'change');
    expect(steady).toEqual([...new Array(steady.length - 1).fill(0), -1]);
    expect(times('scratch-OST0002')[steady.length - 1]).toBe(manifest.toMs);
    expect(times('scratch-OST0003')[0]).toBeGreaterThanOrEqual(manifest.fromMs);
  });
});

describe('query(): raw PromQL and errors', () => {
  it('runs a raw range query (the heatmap input): one series per MDT user and job', async () => {
    const expr = capture('heatmap-mdt-user-rates').params['query'] as string;
    const res = await makeDs().query(request([{ refId: 'H', queryType: 'raw', expr }]));
    expect(res.data).toHaveLength(capture('heatmap-mdt-user-rates').body.data.result.length);
    expect(res.data.length).toBeGreaterThanOrEqual(40);
    expect(new Set(res.data.map((f: DataFrame) => valueField(f)?.labels?.['user']))).toContain('mallory');
    // Jobs that start a quarter into the scenario have no sample at the first step.
    const firstTimes = res.data.map((f: DataFrame) => f.fields[0]?.values[0] as number);
    expect(Math.max(...firstTimes)).toBeGreaterThan(Math.min(...firstTimes));
  });
  it('surfaces the Prometheus error text of a bad expression', async () => {
    await expect(makeDs().query(request([{ refId: 'A', queryType: 'raw', expr: 'sum(jobio_profiler_calls_total' }]))).rejects.toThrow(/HTTP 400.*unclosed left parenthesis/);
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
    const users = (await ds.metricFindQuery({ kind: 'users' }, { range })).map((v) => v.text);
    expect(users).toEqual(expect.arrayContaining(['alice', 'bob', 'mallory']));
    expect(users.length).toBeGreaterThanOrEqual(40);
    const jobs = await ds.metricFindQuery('jobs', { range });
    expect(jobs.map((v) => v.value)).toEqual(expect.arrayContaining(['7001', '7010', '6100']));
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
