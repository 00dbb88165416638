// Frames → the flat list of series the heatmap counts: every numeric field of every frame, with the
// frame's time field. Values stay in the frames' own arrays (no copy).
import { type DataFrame, FieldType, getFieldDisplayName } from '@grafana/data';

export interface HeatSeries {
  name: string;
  labels: Record<string, string>;
  times: ArrayLike<number>;
  values: ArrayLike<number | null | undefined>;
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
      out.push({
        name: getFieldDisplayName(field, frame, frames),
        labels: field.labels ?? {},
        times: time.values as number[],
        values: field.values as Array<number | null>,
      });
    }
  }
  return out;
}
