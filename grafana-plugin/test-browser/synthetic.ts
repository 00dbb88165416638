// Deterministic synthetic load for the benchmark: N series × S steps of per-series rates spread over
// nine decades, with zeros, shaped like Prometheus range frames (one frame per series; a series absent
// for a while has no points there; 20 % start late or end early). `jobIds: 'array'` names the jobs as
// Slurm array tasks (41000007_259: 12 or 13 characters, as on a site that has run for years).
import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';

export function syntheticFrames(seriesCount: number, steps: number, jobIds: 'plain' | 'array' = 'plain', stepMs = 60000, endMs = Date.UTC(2026, 10, 21, 12)): DataFrame[] {
  const start = endMs - (steps - 1) * stepMs;
  const frames: DataFrame[] = [];
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let s = 0; s < seriesCount; s++) {
    const level = -2 + 9 * rand();
    const partial = rand() < 0.2;
    const first = partial ? Math.floor(rand() * steps * 0.5) : 0;
    const last = partial ? first + Math.floor(rand() * (steps - first)) : steps - 1;
    const times: number[] = [];
    const values: number[] = [];
    for (let t = first; t <= last; t++) {
      const r = rand();
      times.push(start + t * stepMs);
      values.push(r < 0.07 ? 0 : 10 ** (level + Math.sin((t + s) / 40) + 0.3 * r));
    }
    frames.push(
      createDataFrame({
        refId: 'A',
        fields: [
          { name: 'Time', type: FieldType.time, values: times },
          { name: 'Value', type: FieldType.number, values, labels: { user: `user${s % 2000}`, jobid: jobIds === 'array' ? `${41000000 + 7 * s}_${(37 * s) % 1000}` : String(100000 + s) } },
        ],
      }),
    );
  }
  return frames;
}
