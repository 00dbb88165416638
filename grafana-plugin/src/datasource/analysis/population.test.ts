// The per-direction characterisation and the population tables, checked against the second implementation written from
// the study's definitions (test/helpers/characterisation-oracle.ts). The code under test reads cumulative counters with
// resets; the oracle reads the bytes of each interval that the counters were made from.
import type { Series } from '../prometheus/types';
import { characterise, type JobCharacter } from '../../../../exporter/src/analysis/characterise.js';
import { DEFAULT_THRESHOLDS, atOrBelow, directionSummary, log2Bins, parseThresholds, percentileTable } from '../../../../exporter/src/analysis/population.js';
import { prng as rng } from '../../test-utils/prng';
import { slides, slidesQuantile } from '../../../../test/helpers/characterisation-oracle.js';

const MiB = 1048576;
const KiB = 1024;
const DT = 60;

// ---- making counters out of interval bytes --------------------------------------------------------------------

/**
 * A counter series for one target whose increments in grid intervals first … first+n−1 are `bytes`. A job that
 * starts after the range's first point shows its first reading as its first increment (counted from zero); a reset
 * (the entry cleared and created again) restarts the counter at the interval's bytes.
 */
function counter(target: string, bytes: number[], first: number, resets: ReadonlySet<number> = new Set()): Series {
  const times: number[] = [];
  const values: number[] = [];
  let v = 0;
  if (first === 0) {
    throw new Error('a job needs a reading before its first interval');
  }
  bytes.forEach((b, k) => {
    // A reset is only visible when the counter goes down: the oracle's bytes are what the rule must recover.
    v = resets.has(k) && k > 0 && b < v ? b : v + b;
    times.push((first + k) * DT * 1000);
    values.push(v);
  });
  return { labels: { target, jobid: 'j' }, times, values };
}

interface SyntheticJob {
  first: number;
  read: number[][];
  write: number[][];
  resets: Array<Set<number>>;
}

function characteriseJob(job: SyntheticJob, gridLength: number, c: number): JobCharacter {
  const grid = Array.from({ length: gridLength }, (_, i) => i * DT * 1000);
  const series = (rows: number[][], offset: number) => rows.map((b, s) => counter(`OST${s.toString().padStart(4, '0')}`, b, job.first, job.resets[s + offset]));
  const c_ = characterise({ read: series(job.read, 0), write: series(job.write, job.read.length), operations: [], grid, stepSeconds: DT, thresholdBytes: c });
  if (!c_) {
    throw new Error('no data');
  }
  return c_;
}

// ---- a synthetic job: bursty reads on 2 OSTs, steady writes on 4 -------------------------------------------------

describe('characterisation per direction: bursty reads on 2 OSTs under steady writes on 4 (Δt = 60 s, c = 1 MiB)', () => {
  // Ten intervals. Writes: 4 MiB on each of four OSTs in every interval (OST0003's counter resets in interval 5).
  // Reads: 8 MiB from OST0000 and OST0001 in the first interval, 8 MiB from OST0000 alone in the sixth.
  const n = 10;
  const write = [0, 1, 2, 3].map(() => new Array<number>(n).fill(4 * MiB));
  const read = [0, 1, 2, 3].map(() => new Array<number>(n).fill(0));
  read[0]![0] = 8 * MiB;
  read[1]![0] = 8 * MiB;
  read[0]![5] = 8 * MiB;
  const job: SyntheticJob = { first: 1, read, write, resets: [new Set(), new Set(), new Set(), new Set(), new Set(), new Set(), new Set(), new Set([5])] };
  const got = characteriseJob(job, n + 1, MiB);
  const merged = read.map((r, s) => r.map((b, k) => b + (write[s]?.[k] ?? 0)));

  it('the merged figures see only the steady writes: I 1, ρ 0, P 1', () => {
    expect([got.ioIntensity, got.burstiness, got.parallelIntensity]).toEqual([1, 0, 1]);
    const o = slides(merged, MiB);
    expect([o.I, o.rho, o.P]).toEqual([1, 0, 1]);
  });
  it('the reads apart are bursty: I 0.2, ρ = 1 − tanh(1/4) ≈ 0.755, P 0.5 on their 2 servers, as the slides define them', () => {
    const o = slides(read, MiB);
    expect(o).toEqual({ I: 0.2, rho: 1 - Math.tanh(0.25), P: 0.5, servers: 2 });
    expect(got.read.ioIntensity).toBeCloseTo(o.I, 12);
    expect(got.read.burstiness).toBeCloseTo(o.rho, 12);
    expect(got.read.burstiness).toBeCloseTo(0.7551, 4);
    expect(got.read.parallelIntensity).toBeCloseTo(o.P, 12);
    expect(got.read.servers).toBe(2);
    expect(got.read.meanBusyServers).toBe(1.5);
  });
  it('the writes apart: I 1, ρ 0, P 1 on 4 servers; volumes survive the reset', () => {
    expect([got.write.ioIntensity, got.write.burstiness, got.write.parallelIntensity, got.write.servers]).toEqual([1, 0, 1, 4]);
    expect(got.write.bytes).toBe(4 * 10 * 4 * MiB);
    expect(got.read.bytes).toBe(24 * MiB);
    expect(got.read.peakBandwidth).toBe((16 * MiB) / DT);
  });
  it('at c = 0 … 8 MiB the reads stay bursty while the writes fall silent above 4 MiB', () => {
    for (const c of [0, 128 * KiB, 4 * MiB, 8 * MiB]) {
      const g = characteriseJob(job, n + 1, c);
      for (const [d, rows] of [
        ['read', read],
        ['write', write],
      ] as const) {
        const o = slides(rows, c);
        expect([c, d, g[d].ioIntensity, g[d].burstiness, g[d].parallelIntensity]).toEqual([c, d, o.I, o.rho, o.P].map((x) => (typeof x === 'number' ? expect.closeTo(x, 12) : x)));
      }
    }
    expect(characteriseJob(job, n + 1, 4 * MiB).write.ioIntensity).toBe(0);
  });
});

// ---- a seeded population ----------------------------------------------------------------------------------------

function population(seed: number, jobs: number): SyntheticJob[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  // Byte sizes around the thresholds, so that each c changes which intervals count.
  const sizes = [0, 0, 64 * KiB, 128 * KiB, 200 * KiB, MiB, 3 * MiB, 64 * MiB, 2 ** 33];
  const out: SyntheticJob[] = [];
  for (let j = 0; j < jobs; j++) {
    const n = 3 + Math.floor(r() * 30);
    const servers = 1 + Math.floor(r() * 6);
    const kind = pick(['both', 'both', 'read', 'write', 'idle']);
    const onShare = r();
    const make = (active: boolean) =>
      Array.from({ length: servers }, () => {
        const serverActive = active && r() < 0.8;
        return Array.from({ length: n }, () => (serverActive && r() < onShare ? pick(sizes) : 0));
      });
    const read = make(kind === 'both' || kind === 'read');
    const write = make(kind === 'both' || kind === 'write');
    const resets = Array.from({ length: 2 * servers }, () => new Set(Array.from({ length: n }, (_, k) => k).filter(() => r() < 0.1)));
    out.push({ first: 1 + Math.floor(r() * 5), read, write, resets });
  }
  return out;
}

describe('population (seed 20161114, 300 jobs): per-job I, ρ, P and the percentile tables against the slides', () => {
  const jobs = population(20161114, 300);
  const gridLength = 40;
  const thresholds = [0, 128 * KiB, MiB, 3 * MiB];
  const measured = thresholds.map((c) => ({ thresholdBytes: c, jobs: jobs.map((j) => characteriseJob(j, gridLength, c)) }));

  it('every job, direction and threshold equals the slides', () => {
    let compared = 0;
    measured.forEach(({ thresholdBytes: c, jobs: chars }) =>
      chars.forEach((g, i) => {
        for (const d of ['read', 'write'] as const) {
          const o = slides(jobs[i]![d], c);
          const got = g[d];
          expect([i, c, d, got.servers, got.ioIntensity, got.burstiness, got.parallelIntensity]).toEqual([
            i,
            c,
            d,
            o.servers,
            expect.closeTo(o.I, 12),
            expect.closeTo(o.rho, 12),
            expect.closeTo(o.P, 12),
          ]);
          compared++;
        }
      }),
    );
    expect(compared).toBe(300 * 2 * 4);
  });
  it('the population is varied enough to test anything: idle, one-server and many-server jobs, resets, all I in [0, 1]', () => {
    const reads = measured[1]!.jobs.map((j) => j.read);
    expect(reads.filter((d) => d.servers === 0).length).toBeGreaterThan(30);
    expect(reads.filter((d) => d.servers === 1).length).toBeGreaterThan(10);
    expect(reads.filter((d) => d.servers >= 4).length).toBeGreaterThan(30);
    expect(new Set(reads.map((d) => d.ioIntensity.toFixed(3))).size).toBeGreaterThan(40);
    expect(jobs.flatMap((j) => j.resets.map((s) => s.size)).reduce((a, b) => a + b, 0)).toBeGreaterThan(200);
  });
  it('the 80 % table (and the 50 % and 100 % ones) equals the quantiles of the slides’ values over the jobs of each direction', () => {
    for (const q of [0.8, 0.5, 1]) {
      const table = percentileTable(measured, q);
      expect(table).toHaveLength(2 * thresholds.length);
      for (const col of table) {
        const c = col.thresholdBytes;
        const own = jobs.map((j) => slides(j[col.direction], c)).filter((o) => o.servers > 0);
        expect(col.jobs).toBe(own.length);
        expect([q, col.direction, c, ...col.values]).toEqual([
          q,
          col.direction,
          c,
          expect.closeTo(
            slidesQuantile(
              own.map((o) => o.I),
              q,
            ),
            12,
          ),
          expect.closeTo(
            slidesQuantile(
              own.map((o) => o.rho),
              q,
            ),
            12,
          ),
          expect.closeTo(
            slidesQuantile(
              own.map((o) => o.P),
              q,
            ),
            12,
          ),
        ]);
      }
    }
  });
  it('a higher threshold never raises the 80 % value of I (fewer intervals count)', () => {
    const table = percentileTable(measured, 0.8);
    for (const d of ['read', 'write']) {
      const is = table.filter((col) => col.direction === d).map((col) => col.values[0] ?? NaN);
      expect([...is].sort((a, b) => b - a)).toEqual(is);
      expect(is[0]).toBeGreaterThan(is[is.length - 1] ?? Infinity);
    }
  });
  it('jobs by volume: per power of two, the counts and the cumulative share of the jobs', () => {
    const chars = measured[0]!.jobs;
    const bins = log2Bins(chars.map((j) => j.write.bytes));
    const volumes = jobs.map((j) => j.write.flat().reduce((a, b) => a + b, 0)).filter((v) => v > 0);
    for (const b of bins) {
      expect(b.count).toBe(volumes.filter((v) => v >= b.from && v < 2 * b.from).length);
      expect(b.cumulative).toBeCloseTo(volumes.filter((v) => v < 2 * b.from).length / volumes.length, 12);
    }
    expect(bins.reduce((a, b) => a + b.count, 0)).toBe(volumes.length);
    expect(bins[bins.length - 1]?.cumulative).toBe(1);
  });
  it('the headline figures: volume at or below which 80 % stay, the top 20 %’s share, peak bandwidth', () => {
    const chars = measured[0]!.jobs;
    const s = directionSummary(chars, 'read', 0.8);
    const volumes = jobs.map((j) => j.read.flat().reduce((a, b) => a + b, 0)).filter((v) => v > 0);
    const sorted = [...volumes].sort((a, b) => b - a);
    const top = sorted.slice(0, Math.round(0.2 * volumes.length));
    expect(s.jobs).toBe(volumes.length);
    expect(s.maxBytes).toBe(sorted[0]);
    expect(s.bytesAtOrBelow).toBe(slidesQuantile(volumes, 0.8));
    expect(s.topShareOfVolume).toBeCloseTo(top.reduce((a, b) => a + b, 0) / volumes.reduce((a, b) => a + b, 0), 12);
    const peaks = jobs.filter((j) => j.read.flat().some((b) => b > 0)).map((j) => Math.max(...(j.read[0] ?? []).map((_, k) => j.read.reduce((a, row) => a + (row[k] ?? 0), 0))) / DT);
    expect(s.peakBandwidthAtOrBelow).toBe(slidesQuantile(peaks, 0.8));
  });
});

describe('population helpers', () => {
  it('atOrBelow is the nearest rank', () => {
    expect(atOrBelow([5, 1, 4, 2, 3], 0.8)).toBe(4);
    expect(atOrBelow([5, 1, 4, 2, 3], 0.81)).toBe(5);
    expect(atOrBelow([7], 0.8)).toBe(7);
    expect(atOrBelow([], 0.8)).toBeNaN();
  });
  it('the default thresholds are the slides’ 0, 128 KiB and 1 MiB; the editor reads a comma list', () => {
    expect(DEFAULT_THRESHOLDS).toEqual([0, 131072, 1048576]);
    expect(parseThresholds('0, 131072,,1048576, x, -1')).toEqual([0, 131072, 1048576]);
  });
});
