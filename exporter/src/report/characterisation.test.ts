// `jobio report`'s characterisation against the second implementation the data source's tests use
// (test/helpers/characterisation-oracle.ts): on the real Prometheus range results the data source's
// tests replay (a real exporter scraped by a real Prometheus, grafana-plugin/src/__fixtures__/prometheus-real), every
// job, direction and threshold, with its place among the jobs of the range; and on a `jobio run` log written here, the
// client's frames.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { characteriseRaw, slides, slidesQuantile, type RawCharacter, type RawMatrix } from '../../../test/helpers/characterisation-oracle.js';
import { characterisationFromCounters, characterisationFromFrames, characterisationQuery, characterisationRange, type RangeCounters } from './characterisation.js';
import { reportFromLog } from './log-source.js';
import type { ReportDirectionJson, ReportThresholdJson } from './report-schema.js';

const CAPTURES = join(import.meta.dirname, '../../../grafana-plugin/src/__fixtures__/prometheus-real');
interface Capture {
  params: { query: string; start: number; end: number; step: number };
  body: { data: { result: RawMatrix } };
}
const capture = (name: string): Capture => JSON.parse(readFileSync(join(CAPTURES, `${name}.json`), 'utf8')) as Capture;
const THRESHOLDS = [0, 128 * 1024, 1024 * 1024];
const near = (got: number | null | undefined, want: number, what: string): void => assert.ok(got !== null && got !== undefined && Math.abs(got - want) <= 5e-7, `${what}: ${got} ≠ ${want}`);

test('from Prometheus: every job of the real captures, per direction and c, equals the second implementation, and so does its place among the jobs', () => {
  const [read, write, operations] = (['read', 'write', 'operations'] as const).map((f) => {
    const c = capture(`char-all-${f}`);
    // the report asks exactly what the data source asks (and what was captured)
    assert.equal(c.params.query, characterisationQuery(f));
    return c;
  }) as [Capture, Capture, Capture];
  const grid = { start: read.params.start, end: read.params.end, step: read.params.step };
  const r: RangeCounters = { ...grid, read: read.body.data.result, write: write.body.data.result, operations: operations.body.data.result };
  const jobids = [...new Set([read, write, operations].flatMap((c) => c.body.data.result.map((s) => s.metric['jobid'] ?? '')))].sort();
  assert.equal(jobids.length, 45);
  const matrices = { read: [read.body.data.result], write: [write.body.data.result] };
  // the job's life: from the first to the last interval with a reading of any of its counters
  const life = [read, write, operations].map((c) => c.body.data.result);
  let compared = 0;
  const seen = { read: 0, write: 0 };
  for (const jobid of jobids) {
    const got = characterisationFromCounters(jobid, r);
    assert.ok(got !== undefined, jobid);
    assert.equal(got.view, 'servers');
    assert.equal(got.step, 2);
    for (const d of ['read', 'write'] as const) {
      const o0 = characteriseRaw(matrices[d], jobid, grid, 0, life);
      const x: ReportDirectionJson | null = got[d];
      if (o0.servers === 0) {
        assert.equal(x, null, `${jobid} ${d}`);
        continue;
      }
      seen[d]++;
      assert.ok(x !== null, `${jobid} ${d}`);
      assert.equal(x.servers, o0.servers);
      assert.equal(x.bytes, o0.total);
      near(x.peak_bandwidth, o0.peak, `${jobid} ${d} peak`);
      assert.deepEqual(
        x.thresholds.map((t) => t.threshold_bytes),
        THRESHOLDS,
      );
      for (const t of x.thresholds) {
        const c = t.threshold_bytes;
        const o: RawCharacter = characteriseRaw(matrices[d], jobid, grid, c, life);
        const s = slides(o.bytes, c);
        const what = `${jobid} ${d} c=${c}`;
        near(t.io_intensity, o.intensity, `${what} I`);
        near(t.io_intensity, s.I, `${what} I (slides)`);
        near(t.burstiness, s.rho, `${what} ρ`);
        near(t.parallel_intensity, s.P, `${what} P`);
        near(t.busy_servers, o.parallel, `${what} |S|Π`);
        // the population: the jobs of the range that moved bytes of this direction
        const all: RawCharacter[] = jobids.map((j) => characteriseRaw(matrices[d], j, grid, c, life)).filter((j) => j.servers > 0);
        const p: ReportThresholdJson['population'] = t.population;
        assert.ok(p !== undefined, what);
        assert.equal(p.jobs, all.length);
        assert.equal(p.quantile, 0.8);
        const figures: ['io_intensity' | 'burstiness' | 'parallel_intensity', (j: RawCharacter) => number][] = [
          ['io_intensity', (j) => j.intensity],
          ['burstiness', (j) => j.burstiness],
          ['parallel_intensity', (j) => j.normalised],
        ];
        for (const [key, own] of figures) {
          const values = all.map(own);
          const mine = own(o);
          near(p[key].share_at_or_below, values.filter((v) => v <= mine + 1e-9).length / values.length, `${what} ${key} share`);
          near(p[key].at_quantile, slidesQuantile(values, 0.8), `${what} ${key} 80 %`);
        }
        compared++;
      }
    }
  }
  // 25 of the 27 jobs with read series read a byte, 29 wrote; each at three thresholds
  assert.deepEqual(seen, { read: 25, write: 29 });
  assert.equal(compared, (25 + 29) * 3);
  // job 7001 writes 16 MiB striped over three OSTs, 6 s on / 6 s off: bursty at c = 1 MiB, all three OSTs busy together
  const j7001 = characterisationFromCounters('7001', r);
  assert.ok(j7001?.write);
  assert.equal(j7001.read, null);
  assert.equal(j7001.write.servers, 3);
  assert.equal(characterisationFromCounters('no-such-job', r), undefined);
  // without the population (a server that refused the query of every job), the job's own figures alone
  const alone = characterisationFromCounters('7001', r, false);
  assert.ok(alone?.write);
  assert.deepEqual(
    alone.write.thresholds.map((t) => t.population),
    [undefined, undefined, undefined],
  );
  assert.deepEqual(
    alone.write.thresholds.map((t) => t.io_intensity),
    j7001.write.thresholds.map((t) => t.io_intensity),
  );
});

test('the range asked for a job: Δt the scrape interval of its samples, one step before it, whole steps, ≤ 10,000 intervals', () => {
  assert.deepEqual(characterisationRange(1000.2, 1100.7, [[1000.2, 1030.2, 1060.1, 1090.3]]), { start: 960, end: 1110, step: 30 });
  assert.deepEqual(characterisationRange(0, 1_000_000, [[0, 1, 2]]), { start: -100, end: 1_000_000, step: 100 });
  assert.deepEqual(characterisationRange(120, 180, [[120]]), { start: 60, end: 180, step: 60 });
});

test('from a jobio run log: the client frames of all mounts give I and ρ per direction and c as the slides define them; P needs servers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-report-char-'));
  try {
    // ten frames of 10 s: reads of 8 MiB in frames 0 and 5 and 100 KiB in frame 7; writes of 4 MiB in frames 0–3 and
    // 2 MiB in the last, shorter frame (4 s)
    const MiB = 1048576;
    const reads = [8 * MiB, 0, 0, 0, 0, 8 * MiB, 0, 100 * 1024, 0, 0];
    const writes = [4 * MiB, 4 * MiB, 4 * MiB, 4 * MiB, 0, 0, 0, 0, 0, 2 * MiB];
    const t0 = Date.parse('2026-11-27T10:00:00Z');
    const base = { version: '3.1.2', hostname: 'n1.example', jobid: '77', jobgroupid: '' };
    const io = (rd: number, wr: number) => ({
      ...(rd > 0 ? { read_all: { calls: { total: 1 }, bytes: { total: rd } } } : {}),
      ...(wr > 0 ? { write_all: { calls: { total: 1 }, bytes: { total: wr } } } : {}),
    });
    const frames = reads.map((rd, k) => {
      const seconds = k === 9 ? 4 : 10;
      const end = t0 + (k * 10 + seconds) * 1000;
      const mount = (p: string) => ({
        ...base,
        type: 'mountpoint',
        jobtotal: false,
        timestamp: new Date(end).toISOString().replace('.000Z', '+00:00'),
        timeframe: `${seconds}s`,
        cumulative: p === '*',
        mountpoint: { path: p, fstype: p === '*' ? '*' : 'lustre', fsname: p, fshost: p },
        io: io(rd, writes[k] ?? 0),
      });
      return [mount('/scratch'), mount('*')];
    });
    const diagnosis = { ...base, type: 'diagnosis', jobtotal: true, jobrealtime: 94e6, jobstarttime: t0, jobendtime: t0 + 94_000, reasons: [], runtime: 94e6, gain_threshold: 0.01, unseen: [] };
    const log = join(dir, 'run.jsonl');
    writeFileSync(log, [...frames.flat(), diagnosis].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const ch = (await reportFromLog(log)).characterisation;
    assert.ok(ch !== undefined);
    assert.deepEqual([ch.view, ch.step, ch.intervals, ch.start, ch.end], ['client', 10, 10, '2026-11-27T10:00:00.000Z', '2026-11-27T10:01:34.000Z']);
    for (const [d, row] of [
      ['read', reads],
      ['write', writes],
    ] as const) {
      const x: ReportDirectionJson | null = ch[d];
      assert.ok(x !== null);
      assert.equal(x.servers, null);
      assert.equal(
        x.bytes,
        row.reduce((a, b) => a + b, 0),
      );
      for (const t of x.thresholds) {
        const s = slides([row], t.threshold_bytes);
        near(t.io_intensity, s.I, `${d} ${t.threshold_bytes} I`);
        near(t.burstiness, s.rho, `${d} ${t.threshold_bytes} ρ`);
        assert.equal(t.parallel_intensity, null);
        assert.equal(t.busy_servers, null);
        assert.equal(t.population, undefined);
      }
    }
    assert.ok(ch.read && ch.write);
    // reads: I 0.3 at c = 0, 0.2 from 128 KiB (the 100 KiB frame falls below); ρ = 1 − tanh(1/4) at 1 MiB (runs 1, 1; idle 4, 4)
    assert.deepEqual(
      ch.read.thresholds.map((t) => t.io_intensity),
      [0.3, 0.2, 0.2],
    );
    near(ch.read.thresholds[2]?.burstiness, 1 - Math.tanh(1 / 4), 'read ρ at 1 MiB');
    // the busiest frame's rate, each frame by its own length: 2 MiB in the last 4 s (524,288 B/s) beat 4 MiB in 10 s
    assert.equal(ch.write.peak_bandwidth, (2 * MiB) / 4);
    assert.equal(ch.read.peak_bandwidth, (8 * MiB) / 10);
    assert.equal(characterisationFromFrames([]), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
