// Frames → the flat list of series the heatmap counts: every numeric field of every frame, with the
// frame's time field. Values stay in the frames' own arrays (no copy); display names are computed
// only for the series a drill-down shows.
import { type DataFrame, type Field, FieldType, getFieldDisplayName } from '@grafana/data';

export interface HeatSeries {
  labels: Record<string, string>;
  times: ArrayLike<number>;
  values: ArrayLike<number | null | undefined>;
  /** A fixed name, or the frame and field to derive Grafana's display name from. */
  name?: string;
  frame?: DataFrame;
  field?: Field;
}

export function seriesName(s: HeatSeries): string {
  if (s.name === undefined) {
    s.name = s.field && s.frame ? getFieldDisplayName(s.field, s.frame) : '';
  }
  return s.name;
}

export function framesToSeries(frames: DataFrame[]): HeatSeries[] {
  const out: HeatSeries[] = [];
  for (const frame of frames) {
    const time = frame.fields.find((f) => f.type === FieldType.time);
    if (!time) {
      continue;
    }
    for (const field of frame.fields) {
      if (field.type !== FieldType.number) {
        continue;
      }
      out.push({ labels: field.labels ?? {}, times: time.values as number[], values: field.values as Array<number | null>, frame, field });
    }
  }
  return out;
}

/** Index of `t` in strictly increasing `times`, or -1. */
export function findTime(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = times[mid] as number;
    if (v === t) {
      return mid;
    }
    if (v < t) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return -1;
}
