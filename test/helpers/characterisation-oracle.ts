// A second implementation of the characterisation, written from the definitions of El Sayed, Bolten, Pleiter, Frings
// (PDSW-DISCS 2016) and not from the code under test (exporter/src/analysis): δ(s, t) = 1 when server s moved more
// than c bytes in [t, t + Δt]; H(t) = 1 when δ(s, t) = 1 for some s; I = Δt·Σ H / (t_e − t_s); ρ = 1 − tanh(l_IO / l_noIO)
// (0 when l_noIO = 0); π(t) = Σ_s δ(s, t) / |S|; Π = Σ π / Σ H; P = (|S|·Π − 1) / (|S| − 1).
// Used by the data source's tests (jest) and by `jobio report`'s (node:test, through tsx): one oracle for both users of
// the one implementation. No imports: it must load in both.

export interface Slides {
  I: number;
  rho: number;
  P: number;
  servers: number;
}

/** bytes[s][k]: bytes server s moved in the job's k-th interval (k = 0 … n−1, t_k = t_s + k·Δt). */
export function slides(bytes: number[][], c: number): Slides {
  const DT = 60;
  const S = bytes.filter((row) => row.some((b) => b > 0));
  const n = bytes[0]?.length ?? 0;
  const ts = 0;
  const te = n * DT;
  const delta = (s: number[], k: number) => ((s[k] ?? 0) > c ? 1 : 0);
  const H: number[] = [];
  for (let k = 0; k < n; k++) {
    H.push(S.some((s) => delta(s, k) === 1) ? 1 : 0);
  }
  const sumH = H.reduce((a, b) => a + b, 0);
  const I = n > 0 ? (DT * sumH) / (te - ts) : 0;
  // Runs: split the H sequence where it changes.
  const runs: Array<{ v: number; len: number }> = [];
  for (const h of H) {
    const last = runs[runs.length - 1];
    if (last && last.v === h) {
      last.len++;
    } else {
      runs.push({ v: h, len: 1 });
    }
  }
  const mean = (v: number) => {
    const r = runs.filter((x) => x.v === v);
    return r.length ? r.reduce((a, x) => a + x.len, 0) / r.length : 0;
  };
  const lIO = mean(1);
  const lNoIO = mean(0);
  // With no I/O interval at all there is no burst: ρ = 0 (the formula alone would say 1).
  const rho = lNoIO > 0 && lIO > 0 ? 1 - Math.tanh(lIO / lNoIO) : 0;
  let sumPi = 0;
  for (let k = 0; k < n; k++) {
    sumPi += S.length ? S.reduce((a, s) => a + delta(s, k), 0) / S.length : 0;
  }
  const Pi = sumH > 0 ? sumPi / sumH : 0;
  const P = S.length > 1 && sumH > 0 ? (S.length * Pi - 1) / (S.length - 1) : 0;
  return { I, rho, P, servers: S.length };
}

/** "q of the jobs are equal or below x": the least job value x with #{v ≤ x} ≥ q·n. */
export function slidesQuantile(values: number[], q: number): number {
  const candidates = [...new Set(values)].filter((x) => values.filter((v) => v <= x).length >= q * values.length - 1e-9);
  return candidates.length ? Math.min(...candidates) : NaN;
}

/** A range query's result, as Prometheus answers it. */
export type RawMatrix = Array<{ metric: Record<string, string>; values: Array<[number, string]> }>;

export interface RawCharacter {
  servers: number;
  total: number;
  intensity: number;
  burstiness: number;
  /** |S|·Π: servers over c per interval with I/O, on average. */
  parallel: number;
  /** P. */
  normalised: number;
  peak: number;
  /** The job's intervals (first to last with a reading) and the bytes each server moved in them, for `slides`. */
  bytes: number[][];
}

/**
 * The characterisation of one job from raw range results of counters (grid: start, start + step, … ≤ end, s): per
 * target the counter growth in each grid interval (a decrease is a reset: the new value is the growth; a series that
 * appears after the grid's first point grew from zero), then the formulas, written out again here. The job's life
 * runs from the first to the last interval with a reading of any of `life` (its other counters: a job may move
 * bytes of one direction only at the end of its life).
 */
export function characteriseRaw(results: RawMatrix[], jobid: string, grid: { start: number; end: number; step: number }, c: number, life: RawMatrix[] = []): RawCharacter {
  const { start, step } = grid;
  const n = Math.floor((grid.end - start) / step) + 1;
  const perTarget = new Map<string, number[]>();
  const seen = new Array<boolean>(n).fill(false);
  let total = 0;
  for (const result of life) {
    for (const s of result.filter((r) => r.metric['jobid'] === jobid)) {
      s.values.forEach(([t], j) => {
        const i = (t - start) / step;
        if (j > 0 || i > 0) {
          seen[i] = true;
        }
      });
    }
  }
  for (const result of results) {
    for (const s of result.filter((r) => r.metric['jobid'] === jobid)) {
      const target = s.metric['target'] ?? '';
      const row = perTarget.get(target) ?? new Array<number>(n).fill(0);
      let prev: number | undefined;
      for (const [t, v] of s.values) {
        const i = (t - start) / step;
        const x = Number(v);
        const d = prev === undefined ? (i > 0 ? x : undefined) : x >= prev ? x - prev : x;
        if (d !== undefined) {
          row[i] = (row[i] ?? 0) + d;
          total += d;
          seen[i] = true;
        }
        prev = x;
      }
      perTarget.set(target, row);
    }
  }
  const first = seen.indexOf(true);
  const last = seen.lastIndexOf(true);
  const rows = [...perTarget.values()];
  const h: number[] = [];
  let busy = 0;
  let peak = 0;
  for (let i = first; first >= 0 && i <= last; i++) {
    const over = rows.filter((r) => (r[i] ?? 0) > c).length;
    busy += over;
    h.push(over > 0 ? 1 : 0);
    peak = Math.max(peak, rows.reduce((a, r) => a + (r[i] ?? 0), 0) / step);
  }
  const runs = (bit: number) => {
    const lengths: number[] = [];
    let len = 0;
    for (const x of [...h, -1]) {
      if (x === bit) {
        len++;
      } else if (len > 0) {
        lengths.push(len);
        len = 0;
      }
    }
    return lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0;
  };
  const io = h.filter((x) => x === 1).length;
  const lio = runs(1);
  const lnoio = runs(0);
  const parallel = io > 0 ? busy / io : 0;
  // |S|: the servers that moved any byte in the job's life.
  const servers = rows.filter((r) => r.some((b, i) => i >= first && i <= last && b > 0)).length;
  return {
    servers,
    total,
    intensity: h.length ? io / h.length : 0,
    burstiness: lnoio > 0 && lio > 0 ? 1 - Math.tanh(lio / lnoio) : 0,
    parallel,
    normalised: servers > 1 && io > 0 ? (parallel - 1) / (servers - 1) : 0,
    peak,
    bytes: first < 0 ? [] : rows.map((r) => r.slice(first, last + 1)),
  };
}
