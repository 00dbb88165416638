import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';
import {
  DEFAULT_QUANTILE,
  DEFAULT_THRESHOLDS,
  DIRECTIONS,
  QUANTITIES,
  directionOf,
  directionSummary,
  log2Bins,
  percentileTable,
  type Direction,
} from '../../../../exporter/src/analysis/population.js';
import type { JobCharacter } from '../../../../exporter/src/analysis/characterise.js';
import type { JobioQuery, PopulationView } from '../types';
import { characteriseAll, fetchJobCounters } from './characterisation';
import type { RunContext } from './context';

/** 0 B, 128 KiB, 1 MiB, 3000 B: column headers that read like the study's. */
export function bytesLabel(n: number): string {
  for (const [unit, size] of [
    ['GiB', 2 ** 30],
    ['MiB', 2 ** 20],
    ['KiB', 2 ** 10],
  ] as const) {
    if (n >= size && n % size === 0) {
      return `${n / size} ${unit}`;
    }
  }
  return `${n} B`;
}

const DIRECTION_NAME: Record<Direction, string> = { read: 'read', write: 'write' };

function percentilesFrame(q: JobioQuery, byThreshold: Array<{ thresholdBytes: number; jobs: JobCharacter[] }>, quantile: number): DataFrame {
  const columns = percentileTable(byThreshold, quantile);
  return createDataFrame({
    refId: q.refId,
    name: `I, ρ, P: ${Math.round(quantile * 100)} % of the jobs at or below`,
    meta: { custom: { jobioMetric: 'population', view: 'percentiles', quantile } },
    fields: [
      { name: 'quantity', type: FieldType.string, values: [...QUANTITIES.map((x) => x.name), 'jobs'] },
      ...columns.map((col) => ({
        name: `${DIRECTION_NAME[col.direction]}, c = ${bytesLabel(col.thresholdBytes)}`,
        type: FieldType.number,
        values: [...col.values, col.jobs],
        config: { decimals: 2 },
      })),
    ],
  });
}

function distributionFrame(q: JobioQuery, jobs: JobCharacter[], view: 'volume' | 'bandwidth'): DataFrame {
  const value = (j: JobCharacter, d: Direction) => {
    const c = directionOf(j, d);
    return c === undefined ? 0 : view === 'volume' ? c.bytes : c.peakBandwidth;
  };
  const bins = DIRECTIONS.map((d) => log2Bins(jobs.map((j) => value(j, d))));
  const froms = [...new Set(bins.flat().map((b) => b.from))].sort((a, b) => a - b);
  const lo = froms[0];
  const hi = froms[froms.length - 1];
  const all: number[] = [];
  for (let x = lo; x !== undefined && hi !== undefined && x <= hi; x *= 2) {
    all.push(x);
  }
  const unit = view === 'volume' ? 'bytes' : 'Bps';
  const fields = DIRECTIONS.flatMap((d, i) => {
    const byFrom = new Map((bins[i] ?? []).map((b) => [b.from, b]));
    let cumulative = 0;
    const counts: number[] = [];
    const shares: number[] = [];
    for (const from of all) {
      const b = byFrom.get(from);
      cumulative = b?.cumulative ?? cumulative;
      counts.push(b?.count ?? 0);
      shares.push(cumulative);
    }
    return [
      { name: `${d} jobs`, type: FieldType.number, values: counts, config: {} },
      { name: `${d} cumulative`, type: FieldType.number, values: shares, config: { unit: 'percentunit' } },
    ];
  });
  return createDataFrame({
    refId: q.refId,
    name: view === 'volume' ? 'jobs by volume (2^k ≤ bytes < 2^(k+1))' : 'jobs by peak bandwidth (2^k ≤ B/s < 2^(k+1))',
    meta: { custom: { jobioMetric: 'population', view } },
    fields: [{ name: 'from', type: FieldType.number, values: all, config: { unit } }, ...fields],
  });
}

function summaryFrame(q: JobioQuery, jobs: JobCharacter[], quantile: number): DataFrame {
  const rows = DIRECTIONS.map((d) => directionSummary(jobs, d, quantile));
  const pct = Math.round(quantile * 100);
  const col = (name: string, values: number[], unit?: string) => ({ name, type: FieldType.number, values, config: unit ? { unit } : {} });
  return createDataFrame({
    refId: q.refId,
    name: 'volume and peak bandwidth of the jobs',
    meta: { custom: { jobioMetric: 'population', view: 'summary', quantile } },
    fields: [
      { name: 'direction', type: FieldType.string, values: rows.map((r) => r.direction) },
      col(
        'jobs',
        rows.map((r) => r.jobs),
      ),
      col(
        'total',
        rows.map((r) => r.totalBytes),
        'bytes',
      ),
      col(
        'largest job',
        rows.map((r) => r.maxBytes),
        'bytes',
      ),
      col(
        `${pct} % of the jobs at or below`,
        rows.map((r) => r.bytesAtOrBelow),
        'bytes',
      ),
      col(
        `share of the volume of the top ${100 - pct} %`,
        rows.map((r) => r.topShareOfVolume),
        'percentunit',
      ),
      col(
        `peak bandwidth ${pct} % of the jobs stay at or below`,
        rows.map((r) => r.peakBandwidthAtOrBelow),
        'Bps',
      ),
    ],
  });
}

/**
 * The population view over the jobs of the range (one job when filtered to it: the study's table for that job).
 * One frame, chosen by `populationView`.
 */
export async function runPopulation(ctx: RunContext, q: JobioQuery, defaultThreshold: number): Promise<DataFrame[]> {
  const counters = await fetchJobCounters(ctx, q);
  const quantile = q.quantile ?? DEFAULT_QUANTILE;
  if (!(quantile > 0 && quantile <= 1)) {
    throw new Error(`quantile must be in (0, 1], got ${quantile}`);
  }
  const view: PopulationView = q.populationView ?? 'percentiles';
  if (view === 'percentiles') {
    const thresholds = q.thresholdsBytes?.length ? q.thresholdsBytes : DEFAULT_THRESHOLDS;
    const byThreshold = thresholds.map((thresholdBytes) => ({ thresholdBytes, jobs: characteriseAll(counters, thresholdBytes).map((r) => r.c) }));
    return [percentilesFrame(q, byThreshold, quantile)];
  }
  // Volume and peak bandwidth do not depend on c.
  const jobs = characteriseAll(counters, q.thresholdBytes ?? defaultThreshold).map((r) => r.c);
  return [view === 'summary' ? summaryFrame(q, jobs, quantile) : distributionFrame(q, jobs, view)];
}
