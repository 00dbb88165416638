// Deterministic synthetic load for the benchmark: N series × S steps of per-series rates spread over
// nine decades, with zeros and gaps, as Prometheus range frames (one frame per series).
import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';

export function syntheticFrames(seriesCount: number, steps: number, stepMs = 60000, endMs = Date.UTC(2026, 10, 21, 12)): DataFrame[] {
  const start = endMs - (steps - 1) * stepMs;
  const times = Array.from({ length: steps }, (_, i) => start + i * stepMs);
  const frames: DataFrame[] = [];
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let s = 0; s < seriesCount; s++) {
    const level = -2 + 9 * rand();
    const values: Array<number | null> = new Array(steps);
    for (let t = 0; t < steps; t++) {
      const r = rand();
      values[t] = r < 0.03 ? null : r < 0.1 ? 0 : 10 ** (level + Math.sin((t + s) / 40) + 0.3 * r);
    }
    frames.push(
      createDataFrame({
        refId: 'A',
        fields: [
          { name: 'Time', type: FieldType.time, values: times },
          { name: 'Value', type: FieldType.number, values, labels: { user: `user${s % 2000}`, jobid: String(100000 + s) } },
        ],
      }),
    );
  }
  return frames;
}
