// The busiest moment of a job's metadata operations from Prometheus' raw samples of its counters.
// Each series' increase between two of its samples is spread over that interval. A series' first
// sample counts too: the exporter exports a series once it has counts, so it was 0 before, and a job
// shorter than the profiler's snapshot interval (10 s by default) sends all its counts in one final
// snapshot, whose series have no earlier sample at all; without this, a storm in such a job, or in
// the first snapshot of a long one, had no rate.

/** Raw samples `[time s, value]` of one counter series, and the exporter (instance) that exports it. */
export interface CounterSeries {
  readonly instance: string;
  readonly samples: readonly (readonly [number, number])[];
}

/**
 * When the job's counts began, at the earliest: the first sample of each run-time series less the run
 * time it holds (a process's first snapshot carries its run time so far). Processes' run times add
 * up, so this is never later than the real start, and rates over it are never too high.
 */
export function countsBegan(runtime: readonly CounterSeries[]): number | undefined {
  const starts = runtime.flatMap((s) => (s.samples[0] === undefined ? [] : [s.samples[0][0] - s.samples[0][1]]));
  return starts.length > 0 ? Math.min(...starts) : undefined;
}

/**
 * The largest sum of the series' rates at any sample time. A series' first sample is an increase from
 * 0 since the same exporter's latest sample of the job without it, else since `began`
 * (countsBegan): the longest it can have taken.
 */
export function peakRate(series: readonly CounterSeries[], began?: number): number {
  const steps: { from: number; to: number; rate: number }[] = [];
  for (const s of series) {
    const first = s.samples[0];
    if (first !== undefined && began !== undefined && first[1] > 0 && first[0] > began) {
      const before = series.filter((o) => o.instance === s.instance).flatMap((o) => o.samples.map(([t]) => t).filter((t) => t < first[0]));
      const from = Math.max(began, ...before);
      steps.push({ from, to: first[0], rate: first[1] / (first[0] - from) });
    }
    for (let i = 1; i < s.samples.length; i++) {
      const [t0, v0] = s.samples[i - 1] as [number, number];
      const [t1, v1] = s.samples[i] as [number, number];
      // a counter reset (an exporter restart) starts again from 0
      const inc = v1 >= v0 ? v1 - v0 : v1;
      if (t1 > t0) steps.push({ from: t0, to: t1, rate: inc / (t1 - t0) });
    }
  }
  let peak = 0;
  for (const at of new Set(steps.map((s) => s.to))) {
    const sum = steps.filter((s) => s.from < at && at <= s.to).reduce((a, s) => a + s.rate, 0);
    peak = Math.max(peak, sum);
  }
  return peak;
}
