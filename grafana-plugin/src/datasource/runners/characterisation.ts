import { type DataFrame, FieldType, createDataFrame } from '@grafana/data';
import { characterise, type JobCharacter } from '../analysis/characterise';
import { rangeGrid } from '../analysis/deltas';
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

const COLUMNS: Array<{ key: keyof JobCharacter; name: string; unit?: string; type?: FieldType }> = [
  { key: 'startMs', name: 'start', type: FieldType.time },
  { key: 'endMs', name: 'end', type: FieldType.time },
  { key: 'totalBytes', name: 'total volume', unit: 'bytes' },
  { key: 'readBytes', name: 'read', unit: 'bytes' },
  { key: 'writeBytes', name: 'written', unit: 'bytes' },
  { key: 'peakBandwidth', name: 'peak bandwidth', unit: 'Bps' },
  { key: 'meanBandwidth', name: 'mean bandwidth', unit: 'Bps' },
  { key: 'meanIops', name: 'mean IOPS', unit: 'iops' },
  { key: 'peakIops', name: 'peak IOPS', unit: 'iops' },
  { key: 'ioIntensity', name: 'I/O intensity', unit: 'percentunit' },
  { key: 'burstiness', name: 'burstiness' },
  { key: 'parallelIntensity', name: 'parallel intensity' },
  { key: 'parallelNormalised', name: 'parallel intensity (normalised)', unit: 'percentunit' },
  { key: 'servers', name: 'servers' },
  { key: 'intervals', name: 'intervals' },
];

/** Per-job characterisation over the range: one table row per job. */
export async function runCharacterisation(ctx: RunContext, q: JobioQuery, defaultThreshold: number): Promise<DataFrame[]> {
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
  const jobs = [...new Set([...reads.keys(), ...writes.keys(), ...ops.keys()])].sort();
  const rows: Array<{ jobid: string; c: JobCharacter }> = [];
  for (const jobid of jobs) {
    const c = characterise({
      read: reads.get(jobid) ?? [],
      write: writes.get(jobid) ?? [],
      operations: ops.get(jobid) ?? [],
      grid,
      stepSeconds: step,
      thresholdBytes: q.thresholdBytes ?? defaultThreshold,
    });
    if (c) {
      rows.push({ jobid, c });
    }
  }
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
          values: rows.map((r) => r.c[col.key]),
          config: col.unit ? { unit: col.unit } : {},
        })),
      ],
    }),
  ];
}
