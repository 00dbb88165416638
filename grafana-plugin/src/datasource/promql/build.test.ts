import { characterisationExprs, loadExpr, summaryExprs, topTalkersExpr, trendExpr, variableMatch } from './build';

const alice = [{ label: 'user', values: ['alice'] }];

describe('summaryExprs', () => {
  it('sums increase over the range by group and class, for calls and I/O seconds', () => {
    expect(summaryExprs('jobid', [], 3600)).toEqual({
      calls: 'sum by (jobid, user, class) (increase(jobio_profiler_calls_total[1h]))',
      seconds: 'sum by (jobid, user, class) (increase(jobio_profiler_io_seconds_total[1h]))',
      bytes:
        'sum by (jobid, user) (label_replace(increase(jobio_profiler_read_bytes_total[1h]), "direction", "read", "", "") or label_replace(increase(jobio_profiler_write_bytes_total[1h]), "direction", "write", "", ""))',
      reasonCalls: 'sum by (jobid, class, reason) (increase(jobio_profiler_reason_calls_total[1h]))',
      reasonSeconds: 'sum by (jobid, class, reason) (increase(jobio_profiler_reason_seconds_total[1h]))',
    });
    expect(summaryExprs('user', [], 60).bytes).toMatch(/^sum by \(user\) \(/);
    expect(summaryExprs('mount', alice, 90).calls).toBe('sum by (mount, class) (increase(jobio_profiler_calls_total{user="alice"}[1m30s]))');
  });
  it('refuses an unknown group', () => {
    expect(() => summaryExprs('user) or vector(1' as never, [], 60)).toThrow(/invalid group/);
  });
});

describe('loadExpr', () => {
  it('joins read and write bytes with distinct direction labels', () => {
    expect(loadExpr('bytes', alice, 'rate', '1m')).toBe(
      'label_replace(rate(jobio_lustre_jobstats_read_bytes_total{user="alice"}[1m]), "direction", "read", "", "") or ' +
        'label_replace(rate(jobio_lustre_jobstats_write_bytes_total{user="alice"}[1m]), "direction", "write", "", "")',
    );
  });
  it('uses one metric otherwise', () => {
    expect(loadExpr('operations', [], 'increase', '5m')).toBe('increase(jobio_lustre_jobstats_operations_total[5m])');
    expect(loadExpr('read_bytes', [], 'rate', '5m')).toBe('rate(jobio_lustre_jobstats_read_bytes_total[5m])');
    expect(loadExpr('write_bytes', [], 'rate', '5m')).toBe('rate(jobio_lustre_jobstats_write_bytes_total[5m])');
  });
});

describe('topTalkersExpr', () => {
  it('ranks volume over the range for instant queries', () => {
    expect(topTalkersExpr('target', 'operations', 5, [], { instant: true, rangeSeconds: 3600, windowSeconds: 60 })).toBe(
      'topk(5, sum by (target) (increase(jobio_lustre_jobstats_operations_total[1h])))',
    );
  });
  it('ranks per-step rates for range queries', () => {
    expect(topTalkersExpr('jobid', 'write_bytes', 3, alice, { instant: false, rangeSeconds: 3600, windowSeconds: 60 })).toBe(
      'topk(3, sum by (jobid) (rate(jobio_lustre_jobstats_write_bytes_total{user="alice"}[1m])))',
    );
  });
  it.each([0, -1, 1.5, 10001, NaN])('refuses limit %p', (limit) => {
    expect(() => topTalkersExpr('user', 'bytes', limit, [], { instant: true, rangeSeconds: 60, windowSeconds: 60 })).toThrow(/invalid limit/);
  });
  it('refuses unknown dimensions and metrics', () => {
    expect(() => topTalkersExpr('host' as never, 'bytes', 5, [], { instant: true, rangeSeconds: 60, windowSeconds: 60 })).toThrow(/invalid dimension/);
    expect(() => loadExpr('joules' as never, [], 'rate', '1m')).toThrow(/invalid metric/);
  });
});

describe('characterisationExprs and trendExpr', () => {
  it('reads raw counters by job and target', () => {
    expect(characterisationExprs([{ label: 'jobid', values: ['7001'] }])).toEqual({
      read: 'sum by (jobid, target) (jobio_lustre_jobstats_read_bytes_total{jobid="7001"})',
      write: 'sum by (jobid, target) (jobio_lustre_jobstats_write_bytes_total{jobid="7001"})',
      operations: 'sum by (jobid, target) (jobio_lustre_jobstats_operations_total{jobid="7001"})',
    });
  });
  it('takes per-target rates for trends', () => {
    expect(trendExpr('operations', [], 120)).toBe('sum by (target) (rate(jobio_lustre_jobstats_operations_total[2m]))');
  });
});

describe('variableMatch', () => {
  it('lists label values of the jobio metrics', () => {
    expect(variableMatch('jobs', alice)).toEqual({ label: 'jobid', match: '{__name__=~"jobio_(lustre_jobstats|profiler)_.+", user="alice"}' });
    expect(variableMatch('targets', [])).toEqual({ label: 'target', match: '{__name__=~"jobio_lustre_.+"}' });
    expect(variableMatch('mounts', []).label).toBe('mount');
    expect(variableMatch('operations', []).label).toBe('operation');
    expect(variableMatch('users', []).label).toBe('user');
    expect(() => variableMatch('hosts' as never, [])).toThrow(/invalid variable kind/);
  });
});
