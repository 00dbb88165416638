import { FieldType, createDataFrame, type DataFrame } from '@grafana/data';
import { seriesToFrames, seriesToTable } from '../../datasource/prometheus/frames';
import { toSeries } from '../../datasource/prometheus/parse';
import { capture } from '../../test-utils/prom-fixtures';
import { collectGroups, metricOf } from './collect';
import { orderGroups } from './order';

const hints = { callsRefId: 'A', secondsRefId: 'B' };

/** Frames shaped like Grafana's Prometheus data source output for the captured standard queries. */
function promFrames(): DataFrame[] {
  return [...seriesToFrames(toSeries(capture('prom-summary-calls-by-jobid-class').body.data), 'A'), ...seriesToFrames(toSeries(capture('prom-summary-seconds-by-jobid-class').body.data), 'B')];
}

function rawValue(name: string, jobid: string, cls: string): number {
  const r = capture(name).body.data.result.find((x: any) => x.metric.jobid === jobid && x.metric.class === cls);
  return r ? Number(r.value[1]) : 0;
}

describe('collectGroups', () => {
  it('sums a standard Prometheus query result (a frame per series) by job and class', () => {
    const groups = collectGroups(promFrames(), 'jobid', hints);
    expect(groups.map((g) => g.group).sort()).toEqual(['7001', '7002', '7003', '7004', '7005']);
    const bob = groups.find((g) => g.group === '7002');
    expect(bob?.calls.red).toBeCloseTo(rawValue('prom-summary-calls-by-jobid-class', '7002', 'red'), 9);
    expect(bob?.seconds.yellow).toBeCloseTo(rawValue('prom-summary-seconds-by-jobid-class', '7002', 'yellow'), 9);
  });
  it('reads the same figures from the table format', () => {
    const table = [
      seriesToTable(toSeries(capture('prom-summary-calls-by-jobid-class').body.data), 'A', ['jobid', 'class'], 'Value #A'),
      seriesToTable(toSeries(capture('prom-summary-seconds-by-jobid-class').body.data), 'B', ['jobid', 'class'], 'Value #B'),
    ];
    const fromTable = collectGroups(table, 'jobid', hints);
    const fromSeries = collectGroups(promFrames(), 'jobid', hints);
    expect(fromTable.sort((a, b) => a.group.localeCompare(b.group))).toEqual(fromSeries.sort((a, b) => a.group.localeCompare(b.group)));
  });
  it('reads the jobio data source tags regardless of refId', () => {
    const tagged = [
      ...seriesToFrames(toSeries(capture('summary-mount-7001-calls').body.data), 'Z', { jobioMetric: 'calls' }),
      ...seriesToFrames(toSeries(capture('summary-mount-7001-seconds').body.data), 'Z', { jobioMetric: 'seconds' }),
    ];
    const groups = collectGroups(tagged, 'mount', hints);
    // Job 7001's dd read from /dev/shm and wrote on /.
    expect(groups.map((g) => g.group).sort()).toEqual(['/', '/dev/shm']);
    expect(groups.find((g) => g.group === '/dev/shm')?.calls.green).toBeGreaterThan(0);
    expect(groups.find((g) => g.group === '/')?.calls.green).toBeGreaterThan(0);
  });
  it('skips series without the group or class label and unknown metrics', () => {
    const frame = createDataFrame({
      refId: 'C',
      fields: [
        { name: 'Time', type: FieldType.time, values: [1] },
        { name: 'Value', type: FieldType.number, values: [5], labels: { jobid: '1', class: 'red' } },
      ],
    });
    const noClass = createDataFrame({
      refId: 'A',
      fields: [
        { name: 'Time', type: FieldType.time, values: [1] },
        { name: 'Value', type: FieldType.number, values: [5], labels: { jobid: '1' } },
      ],
    });
    expect(collectGroups([frame, noClass], 'jobid', hints)).toEqual([]);
  });
  it('takes the last finite value of range results', () => {
    const frame = createDataFrame({
      refId: 'A',
      fields: [
        { name: 'Time', type: FieldType.time, values: [1, 2, 3] },
        { name: 'Value', type: FieldType.number, values: [1, 7, null], labels: { jobid: '1', class: 'green' } },
      ],
    });
    expect(collectGroups([frame], 'jobid', hints)[0]?.calls.green).toBe(7);
  });
});

describe('metricOf', () => {
  it('prefers __name__, then the jobio tag, then the refId', () => {
    const f = (refId: string, labels: Record<string, string>, custom?: Record<string, unknown>) =>
      createDataFrame({ refId, meta: custom ? { custom } : undefined, fields: [{ name: 'Value', type: FieldType.number, values: [1], labels }] });
    const field = (d: DataFrame) => d.fields[0]!;
    const named = f('B', { __name__: 'jobio_profiler_calls_total' });
    expect(metricOf(named, field(named), hints)).toBe('calls');
    const tagged = f('A', {}, { jobioMetric: 'seconds' });
    expect(metricOf(tagged, field(tagged), hints)).toBe('seconds');
    const byRef = f('B', {});
    expect(metricOf(byRef, field(byRef), hints)).toBe('seconds');
    const unknown = f('X', {});
    expect(metricOf(unknown, field(unknown), hints)).toBeUndefined();
  });
});

describe('orderGroups', () => {
  const g = (group: string, red: number, green: number) => ({ group, seconds: { red, yellow: 0, green }, calls: { red: 0, yellow: 0, green: red + green }, users: [], reasons: [] });
  const groups = [g('b', 1, 9), g('a', 5, 5), g('c', 1, 99)];
  it('sorts by red share, then total', () => {
    expect(orderGroups(groups, 'red', 'time').map((x) => x.group)).toEqual(['a', 'b', 'c']);
  });
  it('sorts by total', () => {
    expect(orderGroups(groups, 'total', 'time').map((x) => x.group)).toEqual(['c', 'a', 'b']);
  });
  it('sorts by name, numerically', () => {
    expect(orderGroups([g('10', 0, 1), g('9', 0, 1)], 'name', 'time').map((x) => x.group)).toEqual(['9', '10']);
  });
});
