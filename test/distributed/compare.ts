// Compares query results of two engines (a single Prometheus and VictoriaMetrics fed by sharded
// scrapers). Label sets must be identical; values may differ by the stated tolerance, which covers
// what timestamp alignment changes: the scrapers and the single Prometheus read the growing counters
// a few milliseconds apart, and Prometheus extrapolates rate()/increase() to the window's edges where
// VictoriaMetrics uses the sample just before the window. With 1 s scrapes, 15 s rate windows and
// 30 s increase windows on a loaded machine (load average 17 on 2 cores), of the values that differed
// by more than 0.2 % the median differed by 0.9 %, the 90th percentile by 3.3 % and the largest by
// 5.9 %: profiler snapshots (4 per second, from processes the busy machine starts late) falling on
// either side of a window's edge; the tolerance leaves room for a loaded
// machine that delays a scrape. Label sets (which jobs, targets, alerts) must match exactly.
import type { Series } from './services.js';

export interface Tolerance {
  readonly relative: number;
  readonly absolute: number;
}

export const TOLERANCE: Tolerance = { relative: 0.1, absolute: 1e-6 };

const key = (metric: Record<string, string>): string =>
  JSON.stringify(
    Object.entries(metric)
      .filter(([k]) => k !== 'alertgroup')
      .sort(([a], [b]) => a.localeCompare(b)),
  );

export function close(a: number, b: number, tol: Tolerance = TOLERANCE): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  return Math.abs(a - b) <= tol.absolute + tol.relative * Math.max(Math.abs(a), Math.abs(b));
}

/**
 * Differences between two results, as readable lines (empty when they agree). For range results,
 * points are compared at the timestamps both have; each side may lack at most `edgePoints` points
 * the other has (the first and last steps, where one engine's window holds one sample less).
 */
export function differences(what: string, single: readonly Series[], vm: readonly Series[], opts: { tol?: Tolerance; edgePoints?: number } = {}): string[] {
  const tol = opts.tol ?? TOLERANCE;
  const out: string[] = [];
  const a = new Map(single.map((s) => [key(s.metric), s]));
  const b = new Map(vm.map((s) => [key(s.metric), s]));
  for (const k of a.keys()) if (!b.has(k)) out.push(`${what}: only in Prometheus: ${k}`);
  for (const k of b.keys()) if (!a.has(k)) out.push(`${what}: only in VictoriaMetrics: ${k}`);
  for (const [k, sa] of a) {
    const sb = b.get(k);
    if (!sb) continue;
    const pb = new Map(sb.values.map(([t, v]) => [t, v]));
    const pa = new Map(sa.values.map(([t, v]) => [t, v]));
    const onlyA = sa.values.filter(([t]) => !pb.has(t)).length;
    const onlyB = sb.values.filter(([t]) => !pa.has(t)).length;
    if (onlyA > (opts.edgePoints ?? 0) || onlyB > (opts.edgePoints ?? 0)) out.push(`${what} ${k}: ${onlyA} points only in Prometheus, ${onlyB} only in VictoriaMetrics`);
    for (const [t, va] of sa.values) {
      const vb = pb.get(t);
      if (vb !== undefined && !close(va, vb, tol)) out.push(`${what} ${k} at ${t}: Prometheus ${va}, VictoriaMetrics ${vb}`);
    }
  }
  return out;
}
