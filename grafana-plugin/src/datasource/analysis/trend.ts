// Trend change (docs/architecture.md "Formulas"): a short trailing moving average against a long one; a ratio at or above
// `changeRatio` marks a rise (+1), at or below 1/changeRatio a fall (−1).

/** Trailing moving average over `k` points, ignoring non-finite values (NaN when none in the window). */
export function movingAverage(values: readonly number[], k: number): number[] {
  if (!Number.isInteger(k) || k < 1) {
    throw new Error(`invalid window: ${k}`);
  }
  const out: number[] = [];
  let sum = 0;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i] ?? NaN;
    if (Number.isFinite(v)) {
      sum += v;
      count++;
    }
    const drop = i - k >= 0 ? (values[i - k] ?? NaN) : NaN;
    if (Number.isFinite(drop)) {
      sum -= drop;
      count--;
    }
    out.push(count > 0 ? sum / count : NaN);
  }
  return out;
}

export interface TrendPoint {
  short: number;
  long: number;
  ratio: number;
  change: -1 | 0 | 1;
}

/** Moving averages, their ratio and the change flag for each point. */
export function trendChange(values: readonly number[], shortPoints: number, longPoints: number, changeRatio: number): TrendPoint[] {
  if (!(changeRatio > 1)) {
    throw new Error(`change ratio must be > 1, got ${changeRatio}`);
  }
  const short = movingAverage(values, shortPoints);
  const long = movingAverage(values, longPoints);
  return short.map((s, i) => {
    const l = long[i] ?? NaN;
    const ratio = l > 0 ? s / l : s > 0 ? Infinity : NaN;
    const change = ratio >= changeRatio ? 1 : ratio <= 1 / changeRatio ? -1 : 0;
    return { short: s, long: l, ratio, change };
  });
}
