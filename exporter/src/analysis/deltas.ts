// Counter increments per grid interval, with the reset rule of docs/architecture.md "Formulas" (Tollander de Balsch 2023):
// delta = v(t) − v(t′) if v(t) ≥ v(t′) else v(t).
// Shared by `jobio report` and the Grafana plugin's data source (which imports this file): no Node or browser API.

/** One counter series of a range query: times in ms, values as numbers. */
export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly times: readonly number[];
  readonly values: readonly number[];
}

/** The reset-aware increment between two successive counter readings. */
export function counterDelta(previous: number, current: number): number {
  return current >= previous ? current - previous : current;
}

/**
 * Increment of one counter series in each interval (grid[i-1], grid[i]], NaN where unknown.
 * A series that first appears after the grid's first point is credited its first value (it started
 * from zero inside the window); at the first grid point there is no earlier reading, so NaN.
 * Points off the grid are ignored.
 */
export function intervalDeltas(series: Series, grid: readonly number[]): Float64Array {
  const index = new Map<number, number>();
  grid.forEach((t, i) => index.set(t, i));
  const out = new Float64Array(grid.length).fill(NaN);
  let previous: number | undefined;
  for (let j = 0; j < series.times.length; j++) {
    const i = index.get(series.times[j] ?? NaN);
    const v = series.values[j] ?? NaN;
    if (i === undefined || !Number.isFinite(v)) {
      continue;
    }
    if (previous !== undefined) {
      out[i] = counterDelta(previous, v);
    } else if (i > 0) {
      out[i] = v;
    }
    previous = v;
  }
  return out;
}

/** The grid of a range query: start, start+step, … ≤ end (ms), as Prometheus evaluates it. */
export function rangeGrid(startMs: number, endMs: number, stepMs: number): number[] {
  const grid: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) {
    grid.push(t);
  }
  return grid;
}
