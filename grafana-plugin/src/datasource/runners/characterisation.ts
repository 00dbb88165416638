import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';
import { characterise, type JobCharacter } from '../../../../exporter/src/analysis/characterise.js';
import { rangeGrid } from '../../../../exporter/src/analysis/deltas.js';
import type { Series } from '../prometheus/types';
import { characterisationExprs } from '../promql/build';
import { parseDuration } from '../promql/durations';
import { resolveFilters } from '../promql/interpolate';
import type { JobioQuery } from '../types';
import { type RunContext, alignedStart } from './context';

/** Prometheus refuses more than 11,000 points per series; widen the interval before that. */
const MAX_POINTS = 10000;

function byJob(series: Series[]): Map<string, Series[]> {
  const out = new Map<string, Series[]>();
  for (const s of series) {
    const job = s.labels['jobid'] ?? '';
    out.set(job, [...(out.get(job) ?? []), s]);
  }
  return out;
}

interface Column {
  name: string;
  value: (c: JobCharacter) => number;
  unit?: string;
  type?: FieldType;
}

const direction = (d: 'read' | 'write', label: string): Column[] => [
  { name: `${label} I`, value: (c) => c[d].ioIntensity, unit: 'percentunit' },
  { name: `${label} ρ`, value: (c) => c[d].burstiness },
  { name: `${label} P`, value: (c) => c[d].parallelIntensity, unit: 'percentunit' },
  { name: `${label} servers`, value: (c) => c[d].servers },
  { name: `${label} peak bandwidth`, value: (c) => c[d].peakBandwidth, unit: 'Bps' },
];

// "parallel intensity" is the study's normalised P; the mean count of busy servers (|S|·Π) is its own column.
const COLUMNS: Column[] = [
  { name: 'start', value: (c) => c.startMs, type: FieldType.time },
  { name: 'end', value: (c) => c.endMs, type: FieldType.time },
  { name: 'total volume', value: (c) => c.totalBytes, unit: 'bytes' },
  { name: 'read', value: (c) => c.readBytes, unit: 'bytes' },
  { name: 'written', value: (c) => c.writeBytes, unit: 'bytes' },
  { name: 'peak bandwidth', value: (c) => c.peakBandwidth, unit: 'Bps' },
  { name: 'mean bandwidth', value: (c) => c.meanBandwidth, unit: 'Bps' },
  { name: 'mean IOPS', value: (c) => c.meanIops, unit: 'iops' },
  { name: 'peak IOPS', value: (c) => c.peakIops, unit: 'iops' },
  { name: 'I/O intensity', value: (c) => c.ioIntensity, unit: 'percentunit' },
  { name: 'burstiness', value: (c) => c.burstiness },
  { name: 'parallel intensity', value: (c) => c.parallelIntensity, unit: 'percentunit' },
  { name: 'busy servers per I/O interval', value: (c) => c.meanBusyServers },
  { name: 'servers', value: (c) => c.servers },
  { name: 'intervals', value: (c) => c.intervals },
  ...direction('read', 'read'),
  ...direction('write', 'write'),
];

/** The counters of every job of the range, on one grid: what the characterisation of any job starts from. */
export interface JobCounters {
  grid: number[];
  stepSeconds: number;
  jobs: Array<{ jobid: string; read: Series[]; write: Series[]; operations: Series[] }>;
}

export async function fetchJobCounters(ctx: RunContext, q: JobioQuery): Promise<JobCounters> {
  const filters = resolveFilters(q.filters, ctx.replace, ['jobid', 'user', 'target']);
  const exprs = characterisationExprs(filters);
  let step = Math.max(parseDuration(q.interval ?? '1m'), ctx.scrapeSeconds);
  step = Math.max(step, Math.ceil((ctx.toMs - ctx.fromMs) / 1000 / MAX_POINTS));
  const start = alignedStart(ctx.fromMs, step);
  const grid = rangeGrid(start, ctx.toMs, step * 1000);
  const [read, write, operations] = await Promise.all([exprs.read, exprs.write, exprs.operations].map((e) => ctx.client.queryRange(e, start, ctx.toMs, step)));
  const reads = byJob(read ?? []);
  const writes = byJob(write ?? []);
  const ops = byJob(operations ?? []);
  const jobids = [...new Set([...reads.keys(), ...writes.keys(), ...ops.keys()])].sort();
  return {
    grid,
    stepSeconds: step,
    jobs: jobids.map((jobid) => ({ jobid, read: reads.get(jobid) ?? [], write: writes.get(jobid) ?? [], operations: ops.get(jobid) ?? [] })),
  };
}

/** Every job of the counters characterised at threshold c (jobs without any interval of data left out). */
export function characteriseAll(counters: JobCounters, thresholdBytes: number): Array<{ jobid: string; c: JobCharacter }> {
  const rows: Array<{ jobid: string; c: JobCharacter }> = [];
  for (const job of counters.jobs) {
    const c = characterise({ ...job, grid: counters.grid, stepSeconds: counters.stepSeconds, thresholdBytes });
    if (c) {
      rows.push({ jobid: job.jobid, c });
    }
  }
  return rows;
}

/** Per-job characterisation over the range: one table row per job. */
export async function runCharacterisation(ctx: RunContext, q: JobioQuery, defaultThreshold: number): Promise<DataFrame[]> {
  const counters = await fetchJobCounters(ctx, q);
  const step = counters.stepSeconds;
  const rows = characteriseAll(counters, q.thresholdBytes ?? defaultThreshold);
  return [
    createDataFrame({
      refId: q.refId,
      name: 'characterisation',
      meta: { custom: { jobioMetric: 'characterisation', intervalSeconds: step } },
      fields: [
        { name: 'jobid', type: FieldType.string, values: rows.map((r) => r.jobid) },
        ...COLUMNS.map((col) => ({
          name: col.name,
          type: col.type ?? FieldType.number,
          values: rows.map((r) => col.value(r.c)),
          config: col.unit ? { unit: col.unit } : {},
        })),
      ],
    }),
  ];
}
