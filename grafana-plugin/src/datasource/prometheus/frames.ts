import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';
import type { Series } from './types';

/** `{a="x", b="y"}` display form of a label set (without `__name__`), or the metric name alone. */
export function seriesName(labels: Record<string, string>): string {
  const name = labels['__name__'] ?? '';
  const rest = Object.keys(labels)
    .filter((k) => k !== '__name__')
    .sort()
    .map((k) => `${k}="${labels[k]}"`)
    .join(', ');
  return rest ? `${name}{${rest}}` : name || 'value';
}

/** One time-series frame per series, like Grafana's Prometheus data source: labels on the value field. */
export function seriesToFrames(series: Series[], refId: string, custom?: Record<string, unknown>): DataFrame[] {
  return series.map((s) =>
    createDataFrame({
      refId,
      name: seriesName(s.labels),
      meta: custom ? { custom } : undefined,
      fields: [
        { name: 'Time', type: FieldType.time, values: s.times },
        { name: 'Value', type: FieldType.number, values: s.values, labels: { ...s.labels }, config: { displayNameFromDS: seriesName(s.labels) } },
      ],
    }),
  );
}

/** One table frame: a column per label (in `labelOrder`), then the last value of each series. */
export function seriesToTable(series: Series[], refId: string, labelOrder: string[], valueName: string): DataFrame {
  const columns = labelOrder.map((label) => ({ name: label, type: FieldType.string, values: series.map((s) => s.labels[label] ?? '') }));
  const values = series.map((s) => s.values[s.values.length - 1] ?? NaN);
  return createDataFrame({ refId, fields: [...columns, { name: valueName, type: FieldType.number, values }] });
}
