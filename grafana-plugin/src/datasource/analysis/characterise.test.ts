import { burstiness, characterise, meanRunLengths } from '../../../../exporter/src/analysis/characterise.js';

const grid = [0, 1, 2, 3, 4, 5, 6].map((i) => i * 60000);
const s = (target: string, values: number[], times = grid) => ({ labels: { target, jobid: '1' }, times, values });

describe('meanRunLengths and burstiness', () => {
  it('measures runs with and without I/O', () => {
    expect(meanRunLengths([1, 1, 1, 0, 0, 1])).toEqual({ on: 2, off: 2 });
    expect(meanRunLengths([0, 1, 0, 0, 0, 1, 1])).toEqual({ on: 1.5, off: 2 });
    expect(meanRunLengths([])).toEqual({ on: 0, off: 0 });
  });
  it('is 1 − tanh(l_io / l_noio)', () => {
    expect(burstiness([1, 1, 1, 0, 0, 1])).toBeCloseTo(1 - Math.tanh(1), 12);
    expect(burstiness([0, 1, 0, 0, 0, 1, 1])).toBeCloseTo(1 - Math.tanh(0.75), 12);
  });
  it('is 0 without idle intervals and without any I/O', () => {
    expect(burstiness([1, 1, 1])).toBe(0);
    expect(burstiness([0, 0, 0])).toBe(0);
  });
});

describe('characterise: hand-computed job on two servers, Δt = 60 s, c = 100 B', () => {
  // OST0 read counter → deltas 200, 0, 300, 0, 0, 500; OST1 write counter → deltas 50, 200, 0, 0, 0, 150.
  // Busy servers per interval (> 100 B): 1, 1, 1, 0, 0, 2 → H = 1,1,1,0,0,1.
  // Operations counter → deltas 6, 0, 6, 0, 0, 18.
  const c = characterise({
    read: [s('OST0', [0, 200, 200, 500, 500, 500, 1000])],
    write: [s('OST1', [0, 50, 250, 250, 250, 250, 400])],
    operations: [s('MDT0', [0, 6, 6, 12, 12, 12, 30])],
    grid,
    stepSeconds: 60,
    thresholdBytes: 100,
  });
  it('covers the job life and its servers', () => {
    expect(c).toMatchObject({ startMs: 0, endMs: 360000, intervals: 6, servers: 2 });
  });
  it('sums volume and finds peak and mean bandwidth', () => {
    expect(c?.readBytes).toBe(1000);
    expect(c?.writeBytes).toBe(400);
    expect(c?.totalBytes).toBe(1400);
    expect(c?.peakBandwidth).toBeCloseTo(650 / 60, 12);
    expect(c?.meanBandwidth).toBeCloseTo(1400 / 360, 12);
  });
  it('computes IOPS from the operations counter', () => {
    expect(c?.meanIops).toBeCloseTo(30 / 360, 12);
    expect(c?.peakIops).toBeCloseTo(18 / 60, 12);
  });
  it('computes I/O intensity, burstiness and parallel intensity', () => {
    expect(c?.ioIntensity).toBeCloseTo(4 / 6, 12);
    expect(c?.burstiness).toBeCloseTo(1 - Math.tanh(2 / 2), 12);
    expect(c?.meanBusyServers).toBeCloseTo(5 / 4, 12);
    expect(c?.parallelIntensity).toBeCloseTo((5 / 4 - 1) / (2 - 1), 12);
  });
});

describe('characterise: edge cases', () => {
  it('uses the threshold strictly (exactly c bytes is not I/O)', () => {
    const c = characterise({ read: [s('OST0', [0, 100, 201])], write: [], operations: [], grid: grid.slice(0, 3), stepSeconds: 60, thresholdBytes: 100 });
    expect(c?.ioIntensity).toBe(0.5);
  });
  it('gives P = 0 on a single server and Π = 1', () => {
    const c = characterise({ read: [s('OST0', [0, 500, 1000])], write: [], operations: [], grid: grid.slice(0, 3), stepSeconds: 60, thresholdBytes: 100 });
    expect(c?.meanBusyServers).toBe(1);
    expect(c?.parallelIntensity).toBe(0);
    expect(c?.burstiness).toBe(0);
  });
  it('starts the life where the job appears and counts its first values', () => {
    const c = characterise({ read: [s('OST0', [300, 300, 900], grid.slice(3, 6))], write: [], operations: [], grid, stepSeconds: 60, thresholdBytes: 100 });
    expect(c).toMatchObject({ startMs: 120000, endMs: 300000, intervals: 3, readBytes: 900 });
    expect(c?.ioIntensity).toBeCloseTo(2 / 3, 12);
  });
  it('handles a counter reset inside the life', () => {
    const c = characterise({ read: [s('OST0', [1000, 1500, 200, 700])], write: [], operations: [], grid: grid.slice(0, 4), stepSeconds: 60, thresholdBytes: 100 });
    expect(c?.readBytes).toBe(500 + 200 + 500);
  });
  it('returns undefined without any interval of data', () => {
    expect(characterise({ read: [s('OST0', [5], [0])], write: [], operations: [], grid, stepSeconds: 60, thresholdBytes: 1 })).toBeUndefined();
  });
  it('reports no I/O for an idle job: I = 0, ρ = 0, Π = 0, P = 0, and no server used', () => {
    const c = characterise({ read: [s('OST0', [0, 0, 0]), s('OST1', [0, 0, 0])], write: [], operations: [], grid: grid.slice(0, 3), stepSeconds: 60, thresholdBytes: 1 });
    expect(c).toMatchObject({ ioIntensity: 0, burstiness: 0, meanBusyServers: 0, parallelIntensity: 0, servers: 0 });
  });
});
