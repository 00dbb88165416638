// Frames → per-group class totals of calls and I/O seconds. Accepts what a Prometheus query returns
// in either format (a frame per series with labels on the value field, or a table with label columns)
// and what the jobio data source returns (frames tagged meta.custom.jobioMetric).
import { type DataFrame, type Field, FieldType } from '@grafana/data';
import type { SummaryGroupBy } from '../types';
import { type GroupTotals, type RygClass, CLASSES, emptyGroup } from './rollup';

export type SummaryMetric = 'calls' | 'seconds' | 'bytes' | 'reasonCalls' | 'reasonSeconds';

export interface MetricHints {
  callsRefId: string;
  secondsRefId: string;
  bytesRefId?: string;
}

const METRICS: readonly SummaryMetric[] = ['calls', 'seconds', 'bytes', 'reasonCalls', 'reasonSeconds'];

const NAME_TO_METRIC: Record<string, SummaryMetric> = {
  jobio_profiler_calls_total: 'calls',
  jobio_profiler_io_seconds_total: 'seconds',
  jobio_profiler_read_bytes_total: 'bytes',
  jobio_profiler_write_bytes_total: 'bytes',
  jobio_profiler_reason_calls_total: 'reasonCalls',
  jobio_profiler_reason_seconds_total: 'reasonSeconds',
};

/** Which metric a field holds: its `__name__`, the frame's jobio tag, or the query refId. */
export function metricOf(frame: DataFrame, field: Field, hints: MetricHints): SummaryMetric | undefined {
  const byName = NAME_TO_METRIC[field.labels?.['__name__'] ?? ''];
  if (byName) {
    return byName;
  }
  const tag = frame.meta?.custom?.['jobioMetric'];
  if ((METRICS as readonly unknown[]).includes(tag)) {
    return tag as SummaryMetric;
  }
  if (frame.refId === hints.callsRefId) {
    return 'calls';
  }
  if (frame.refId === hints.secondsRefId) {
    return 'seconds';
  }
  if (hints.bytesRefId && frame.refId === hints.bytesRefId) {
    return 'bytes';
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

/** One row of a result: its group, class, reason and user (from label columns or field labels). */
interface RowLabels {
  group?: string;
  cls?: string;
  reason?: string;
  user?: string;
}

/** Adds one value to its group: class totals, volume, reasons; the user when the row names one. */
function addValue(groups: Map<string, GroupTotals>, metric: SummaryMetric | undefined, row: RowLabels, value: number): void {
  if (row.group === undefined || !metric) {
    return;
  }
  const needsClass = metric !== 'bytes';
  if (needsClass && !isClass(row.cls)) {
    return;
  }
  if (metric.startsWith('reason') && !row.reason) {
    return;
  }
  const g = groups.get(row.group) ?? emptyGroup(row.group);
  groups.set(row.group, g);
  if (row.user && !g.users.includes(row.user)) {
    g.users.push(row.user);
    g.users.sort();
  }
  const cls = row.cls as RygClass;
  switch (metric) {
    case 'calls':
    case 'seconds':
      g[metric][cls] += value;
      return;
    case 'bytes':
      g.bytes = (g.bytes ?? 0) + value;
      return;
    default: {
      let r = g.reasons.find((x) => x.cls === cls && x.reason === row.reason);
      if (!r) {
        r = { cls, reason: row.reason as string, calls: 0, seconds: 0 };
        g.reasons.push(r);
      }
      r[metric === 'reasonCalls' ? 'calls' : 'seconds'] += value;
    }
  }
}

/**
 * Sums calls and seconds by group and class, bytes by group, reasons by group, class and reason.
 * Rows without the labels their metric needs are skipped.
 */
export function collectGroups(frames: DataFrame[], groupBy: SummaryGroupBy, hints: MetricHints): GroupTotals[] {
  const groups = new Map<string, GroupTotals>();
  for (const frame of frames) {
    const strings = frame.fields.filter((f) => f.type === FieldType.string);
    const numbers = frame.fields.filter((f) => f.type === FieldType.number);
    const column = (name: string) => strings.find((f) => f.name === name);
    const cols = { group: column(groupBy), cls: column('class'), reason: column('reason'), user: column('user') };
    const tabular = Object.values(cols).some((c) => c !== undefined);
    for (const field of numbers) {
      const metric = metricOf(frame, field, hints);
      const label = (col: Field | undefined, name: string, row: number) => (col ? String(col.values[row]) : field.labels?.[name]);
      if (tabular) {
        for (let row = 0; row < frame.length; row++) {
          const labels = { group: label(cols.group, groupBy, row), cls: label(cols.cls, 'class', row), reason: label(cols.reason, 'reason', row), user: label(cols.user, 'user', row) };
          addValue(groups, metric, labels, lastValue(field, row));
        }
      } else {
        const l = field.labels ?? {};
        addValue(groups, metric, { group: l[groupBy], cls: l['class'], reason: l['reason'], user: l['user'] }, lastValue(field));
      }
    }
  }
  return [...groups.values()];
}
