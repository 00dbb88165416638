// The job's I/O characterisation in `jobio report` (docs/analyses.md): per direction, its volume, peak
// bandwidth and, at each threshold c of the study (0, 128 KiB, 1 MiB per interval), I/O intensity I,
// burstiness ρ and parallel intensity P, computed by the same code as the Grafana data source's
// characterisation (exporter/src/analysis). From Prometheus the servers are the job's OSTs and MDTs in
// its job_stats series, and the job is placed among all jobs with job_stats series in the same range;
// from a `jobio run` log the one "server" is the client: the profiled I/O of all mounts per time frame
// (I and ρ; P needs the servers and is null).
import { characterise, directionCharacter, type DirectionCharacter, type JobCharacter } from '../analysis/characterise.js';
import { rangeGrid, type Series } from '../analysis/deltas.js';
import { atOrBelow, DEFAULT_QUANTILE, DEFAULT_THRESHOLDS, DIRECTIONS, directionOf, shareAtOrBelow, type Direction } from '../analysis/population.js';
import { rangeQuery, TopSourceError, type PrometheusQueryOptions } from '../top/prometheus-source.js';
import { promString } from '../top/promql.js';
import { changeSpan, type JobStatsSamples } from './file-system.js';
import type { ReportCharacterisationJson, ReportDirectionJson, ReportRankJson, ReportThresholdJson } from './report-schema.js';

/** Prometheus refuses more than 11,000 points per series: a longer job gets longer intervals. */
export const MAX_INTERVALS = 10_000;

/** The job_stats counters the characterisation reads, per job and target (the data source asks the same). */
const FAMILIES = { read: 'jobio_lustre_jobstats_read_bytes_total', write: 'jobio_lustre_jobstats_write_bytes_total', operations: 'jobio_lustre_jobstats_operations_total' } as const;

/** The range query of one family, for every job or, with a `{jobid="…"}` selector, for one. */
export function characterisationQuery(family: keyof typeof FAMILIES, selector = ''): string {
  return `sum by (jobid, target) (${FAMILIES[family]}${selector})`;
}

type Matrix = readonly { readonly metric: Readonly<Record<string, string>>; readonly values: readonly (readonly [number, string])[] }[];

/** A range query's series as the analysis reads them: times in ms, values as numbers. */
export function matrixSeries(m: Matrix): Series[] {
  return m.map((s) => ({ labels: s.metric, times: s.values.map(([t]) => Math.round(t * 1000)), values: s.values.map(([, v]) => Number(v)) }));
}

/** The counters of the range, per job: read bytes, write bytes and operations by target. */
export interface RangeCounters {
  /** The range query's grid: start, start + step, … ≤ end (seconds). */
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly read: Matrix;
  readonly write: Matrix;
  readonly operations: Matrix;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Every job of the counters characterised at threshold c, by job id (jobs without data in the range left out). */
function characteriseJobs(r: RangeCounters, c: number): Map<string, JobCharacter> {
  const grid = rangeGrid(r.start * 1000, r.end * 1000, r.step * 1000);
  const jobs = new Map<string, { read: Series[]; write: Series[]; operations: Series[] }>();
  for (const key of ['read', 'write', 'operations'] as const)
    for (const s of matrixSeries(r[key])) {
      const id = s.labels['jobid'] ?? '';
      const job = jobs.get(id) ?? { read: [], write: [], operations: [] };
      job[key].push(s);
      jobs.set(id, job);
    }
  const out = new Map<string, JobCharacter>();
  for (const [id, job] of jobs) {
    const ch = characterise({ ...job, grid, stepSeconds: r.step, thresholdBytes: c });
    if (ch !== undefined) out.set(id, ch);
  }
  return out;
}

function rank(values: readonly number[], x: number): ReportRankJson {
  return { share_at_or_below: round(shareAtOrBelow(values, x)), at_quantile: round(atOrBelow(values, DEFAULT_QUANTILE)) };
}

/**
 * The characterisation of job `jobid` from the range counters of every job (the population: the job among the
 * jobs of the same range); undefined when the job has no data in the range.
 */
export function characterisationFromCounters(jobid: string, r: RangeCounters, withPopulation = true): ReportCharacterisationJson | undefined {
  const byThreshold = DEFAULT_THRESHOLDS.map((c) => ({ c, jobs: characteriseJobs(r, c) }));
  const own = byThreshold.map(({ c, jobs }) => ({ c, job: jobs.get(jobid), population: [...jobs.values()] }));
  const first = own[0]?.job;
  if (first === undefined) return undefined;
  const direction = (d: Direction): ReportDirectionJson | null => {
    const base = directionOf(first, d);
    if (base === undefined) return null;
    return {
      bytes: base.bytes,
      peak_bandwidth: round(base.peakBandwidth),
      servers: base.servers,
      thresholds: own.map(({ c, job, population }): ReportThresholdJson => {
        const x = (job as JobCharacter)[d];
        const figures = {
          threshold_bytes: c,
          io_intensity: round(x.ioIntensity),
          burstiness: round(x.burstiness),
          busy_servers: round(x.meanBusyServers),
          parallel_intensity: round(x.parallelIntensity),
        };
        if (!withPopulation) return figures;
        const others = population.map((j) => directionOf(j, d)).filter((v): v is DirectionCharacter => v !== undefined);
        const place = (key: 'ioIntensity' | 'burstiness' | 'parallelIntensity'): ReportRankJson =>
          rank(
            others.map((o) => o[key]),
            x[key],
          );
        return {
          ...figures,
          population: { jobs: others.length, quantile: DEFAULT_QUANTILE, io_intensity: place('ioIntensity'), burstiness: place('burstiness'), parallel_intensity: place('parallelIntensity') },
        };
      }),
    };
  };
  return {
    view: 'servers',
    step: r.step,
    intervals: first.intervals,
    start: new Date(first.startMs).toISOString(),
    end: new Date(first.endMs).toISOString(),
    read: direction('read'),
    write: direction('write'),
  };
}

/**
 * The range to ask for a job seen from `from` to `to` (s): Δt is the scrape interval its samples show (the
 * smallest gap between two samples of one series, whole seconds), longer when the job needs more than
 * MAX_INTERVALS; the grid starts one step before the job so that its first increase has a reading before it.
 */
export function characterisationRange(from: number, to: number, sampleTimes: readonly (readonly number[])[]): { start: number; end: number; step: number } {
  let gap = Infinity;
  for (const times of sampleTimes) for (let i = 1; i < times.length; i++) gap = Math.min(gap, (times[i] ?? 0) - (times[i - 1] ?? 0));
  let step = Number.isFinite(gap) && gap > 0 ? Math.max(1, Math.round(gap)) : 60;
  step = Math.max(step, Math.ceil((to - from) / MAX_INTERVALS));
  const start = Math.floor(from / step) * step - step;
  return { start, end: Math.ceil(to / step) * step, step };
}

/**
 * From Prometheus: the counters of every job over the job's life (the population), or, when the server refuses
 * that (a query limit of a large site), the job's own without a population.
 */
export async function characterisationFromPrometheus(q: PrometheusQueryOptions, jobid: string, samples: JobStatsSamples): Promise<ReportCharacterisationJson | undefined> {
  const [from, to] = changeSpan(samples);
  if (from === undefined || to === undefined) return undefined;
  const times = [...samples.operations, ...samples.readBytes, ...samples.writeBytes].map((s) => s.values.map(([t]) => t));
  const range = characterisationRange(from, to, times);
  const ask = async (selector: string): Promise<RangeCounters> => {
    const [read = [], write = [], operations = []] = await Promise.all((['read', 'write', 'operations'] as const).map((f) => rangeQuery(q, characterisationQuery(f, selector), range)));
    return { ...range, read, write, operations };
  };
  try {
    return characterisationFromCounters(jobid, await ask(''));
  } catch (err) {
    if (!(err instanceof TopSourceError)) throw err;
    return characterisationFromCounters(jobid, await ask(`{jobid=${promString(jobid)}}`), false);
  }
}

/** One time frame of a `jobio run` log: its length (s), end time (ms) and the bytes all mounts read and wrote in it. */
export interface LogFrame {
  readonly seconds: number;
  readonly endMs: number;
  readonly read: number;
  readonly write: number;
}

/** The client's view from a log's frames: I and ρ per direction and threshold, the busiest frame's rate; no servers. */
export function characterisationFromFrames(frames: readonly LogFrame[]): ReportCharacterisationJson | undefined {
  const last = frames[frames.length - 1];
  const firstFrame = frames[0];
  if (last === undefined || firstFrame === undefined) return undefined;
  const step = Math.max(...frames.map((f) => f.seconds));
  const direction = (d: Direction): ReportDirectionJson | null => {
    const row = Float64Array.from(frames.map((f) => f[d]));
    const bytes = row.reduce((a, b) => a + b, 0);
    if (bytes === 0) return null;
    return {
      bytes,
      // each frame's own length: the last one may be shorter
      peak_bandwidth: round(Math.max(...frames.map((f) => f[d] / Math.max(1, f.seconds)))),
      servers: null,
      thresholds: DEFAULT_THRESHOLDS.map((c) => {
        const x = directionCharacter([row], 0, frames.length - 1, c, step);
        return { threshold_bytes: c, io_intensity: round(x.ioIntensity), burstiness: round(x.burstiness), busy_servers: null, parallel_intensity: null };
      }),
    };
  };
  return {
    view: 'client',
    step,
    intervals: frames.length,
    start: new Date(firstFrame.endMs - firstFrame.seconds * 1000).toISOString(),
    end: new Date(last.endMs).toISOString(),
    read: direction('read'),
    write: direction('write'),
  };
}

/** The directions in report order. */
export const REPORT_DIRECTIONS: readonly Direction[] = DIRECTIONS;
