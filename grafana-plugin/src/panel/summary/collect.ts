// Frames → per-group class totals of calls and I/O seconds. Accepts what a Prometheus query returns
// in either format (a frame per series with labels on the value field, or a table with label columns)
// and what the jobio data source returns (frames tagged meta.custom.jobioMetric).
import { type DataFrame, type Field, FieldType } from '@grafana/data';
import type { SummaryGroupBy } from '../types';
import { type GroupTotals, type RygClass, CLASSES, emptyTotals } from './rollup';

export type SummaryMetric = 'calls' | 'seconds';

export interface MetricHints {
  callsRefId: string;
  secondsRefId: string;
}

const NAME_TO_METRIC: Record<string, SummaryMetric> = {
  jobio_profiler_calls_total: 'calls',
  jobio_profiler_io_seconds_total: 'seconds',
};

/** Which metric a field holds: its `__name__`, the frame's jobio tag, or the query refId. */
export function metricOf(frame: DataFrame, field: Field, hints: MetricHints): SummaryMetric | undefined {
  const byName = NAME_TO_METRIC[field.labels?.['__name__'] ?? ''];
  if (byName) {
    return byName;
  }
  const tag = frame.meta?.custom?.['jobioMetric'];
  if (tag === 'calls' || tag === 'seconds') {
    return tag;
  }
  if (frame.refId === hints.callsRefId) {
    return 'calls';
  }
  if (frame.refId === hints.secondsRefId) {
    return 'seconds';
  }
  return undefined;
}

function isClass(value: string | undefined): value is RygClass {
  return value !== undefined && (CLASSES as readonly string[]).includes(value);
}

/** Last finite value of a field (a range result's last step; an instant result's only value). */
function lastValue(field: Field, row?: number): number {
  if (row !== undefined) {
    const v = Number(field.values[row]);
    return Number.isFinite(v) ? v : 0;
  }
  for (let i = field.values.length - 1; i >= 0; i--) {
    const v = Number(field.values[i]);
    if (field.values[i] !== null && Number.isFinite(v)) {
      return v;
    }
  }
  return 0;
}

/** Sums calls and seconds by group and class. Rows without a class or group label are skipped. */
export function collectGroups(frames: DataFrame[], groupBy: SummaryGroupBy, hints: MetricHints): GroupTotals[] {
  const groups = new Map<string, GroupTotals>();
  const add = (group: string | undefined, cls: string | undefined, metric: SummaryMetric | undefined, value: number) => {
    if (group === undefined || !isClass(cls) || !metric) {
      return;
    }
    const g = groups.get(group) ?? { group, seconds: emptyTotals(), calls: emptyTotals() };
    g[metric][cls] += value;
    groups.set(group, g);
  };
  for (const frame of frames) {
    const strings = frame.fields.filter((f) => f.type === FieldType.string);
    const numbers = frame.fields.filter((f) => f.type === FieldType.number);
    const groupCol = strings.find((f) => f.name === groupBy);
    const classCol = strings.find((f) => f.name === 'class');
    for (const field of numbers) {
      const metric = metricOf(frame, field, hints);
      if (groupCol || classCol) {
        for (let row = 0; row < frame.length; row++) {
          const group = groupCol ? String(groupCol.values[row]) : field.labels?.[groupBy];
          const cls = classCol ? String(classCol.values[row]) : field.labels?.['class'];
          add(group, cls, metric, lastValue(field, row));
        }
      } else {
        add(field.labels?.[groupBy], field.labels?.['class'], metric, lastValue(field));
      }
    }
  }
  return [...groups.values()];
}
