import { capture } from '../../test-utils/prom-fixtures';
import { seriesName, seriesToFrames, seriesToTable } from './frames';
import { parseSampleValue, toSeries, unwrap } from './parse';

describe('parse', () => {
  it('parses special sample values', () => {
    expect(parseSampleValue('1.5')).toBe(1.5);
    expect(parseSampleValue('+Inf')).toBe(Infinity);
    expect(parseSampleValue('-Inf')).toBe(-Infinity);
    expect(parseSampleValue('NaN')).toBeNaN();
  });
  it('unwraps success and throws Prometheus errors', () => {
    expect(unwrap({ status: 'success', data: 1 })).toBe(1);
    expect(() => unwrap(capture('error-bad-expr').body)).toThrow(/bad_data: 1:31: parse error/);
  });
  it('turns a captured matrix into series with ms times', () => {
    const raw = capture('heatmap-mdt-user-rates').body.data;
    const series = toSeries(raw);
    expect(series).toHaveLength(raw.result.length);
    expect(series[0]?.times[0]).toBe(raw.result[0].values[0][0] * 1000);
    expect(series[0]?.values[0]).toBe(Number(raw.result[0].values[0][1]));
  });
  it('turns a captured vector into one-point series', () => {
    const raw = capture('summary-jobid-calls').body.data;
    const series = toSeries(raw);
    expect(series.every((s) => s.values.length === 1)).toBe(true);
  });
  it('handles scalars', () => {
    expect(toSeries({ resultType: 'scalar', result: [10, '2'] })).toEqual([{ labels: {}, times: [10000], values: [2] }]);
  });
});

describe('frames', () => {
  const series = [{ labels: { __name__: 'm', user: 'bob', jobid: '1' }, times: [1000, 2000], values: [1, 2] }];
  it('names series like Prometheus', () => {
    expect(seriesName(series[0]!.labels)).toBe('m{jobid="1", user="bob"}');
    expect(seriesName({})).toBe('value');
  });
  it('builds a frame per series with labels on the value field', () => {
    const [f] = seriesToFrames(series, 'A', { jobioMetric: 'calls' });
    expect(f?.refId).toBe('A');
    expect(f?.meta?.custom?.['jobioMetric']).toBe('calls');
    expect(f?.fields[1]?.labels).toEqual(series[0]!.labels);
  });
  it('builds a table of last values', () => {
    const t = seriesToTable(series, 'A', ['user'], 'v');
    expect(t.fields.map((f) => [f.name, [...f.values]])).toEqual([
      ['user', ['bob']],
      ['v', [2]],
    ]);
  });
});
