// `jobio run --output` writes `gpu` records (per GPU and for all of them) from NVML, in the manual's
// shapes: energy and PCIe bytes as {total, min/s, mean/s, median/s, max/s}, utilisation as its
// per-second statistics. Here the fake NVML with two GPUs of known readings (GPU 0's energy counter
// grows by exactly 3.5 J at every read); and no gpu records, quietly, where there is no NVML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio } from '../helpers/exporter.js';
import { readValidLog, type LogRecord } from '../profiler/mistral-schema.js';
import { fakeConfig, fakeLibrary } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'jobio-run-gpu-'));
const config = fakeConfig([
  'gpus=2',
  'gpu0.util=55',
  'gpu0.temp=61',
  `gpu0.mem_used=${3 * 2 ** 30}`,
  'gpu0.power_mw=250000',
  'gpu0.pcie_rx_kbps=4096',
  'gpu0.pcie_tx_kbps=1024',
  'gpu0.energy_mj_step=3500',
  'gpu1.util=5',
  'gpu1.temp=35',
]);

test('gpu records from the fake NVML: every frame and the job total, per GPU and for all', async () => {
  const out = join(dir, 'gpu.jsonl');
  const r = await runJobio(['run', '--nvml-library', fakeLibrary, '--timeframe', '1s', '-o', out, '--', '/bin/sleep', '2.5'], { env: { JOBIO_FAKE_NVML_CONFIG: config } });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const gpu = records.filter((x) => x.type === 'gpu');
  const periodic = gpu.filter((x) => x.jobtotal === false);
  const resources = records.filter((x) => x.type === 'resources' && x.jobtotal === false);
  // each frame: /dev/nvidia0, /dev/nvidia1 and "*", in that order
  assert.deepEqual(
    periodic.map((x) => x.gpu),
    resources.flatMap(() => ['/dev/nvidia0', '/dev/nvidia1', '*']),
  );
  const total = (device: string): LogRecord => gpu.find((x) => x.jobtotal === true && x.gpu === device) as LogRecord;
  const g0 = total('/dev/nvidia0').usage as LogRecord;
  assert.deepEqual(g0.utilisation, { 'min/s': 55, 'mean/s': 55, 'median/s': 55, 'max/s': 55 });
  assert.deepEqual(g0.temperature, { max: 61, 'mean/s': 61 });
  assert.deepEqual(g0.mem, { max: 3 * 2 ** 30, 'mean/s': 3 * 2 ** 30 });
  assert.deepEqual(g0.power, { max: 250, 'mean/s': 250 });
  // energy: 3.5 J per sample after the first; a second holds the samples that closed it (1, or 2
  // where the run's last sample joined the last second), a second without a sample 0
  const seconds = Number(String(total('*').timeframe).replace(/s$/, ''));
  const energyFrames = periodic.filter((x) => x.gpu === '/dev/nvidia0').map((x) => x.usage.energy as LogRecord);
  for (const e of [g0.energy as LogRecord, ...energyFrames])
    for (const f of ['total', 'min/s', 'median/s', 'max/s']) assert.ok(Number.isInteger(Number(e[f]) / 3.5), `energy.${f} ${String(e[f])} is whole samples of 3.5 J`);
  assert.ok(g0.energy.total >= 3.5 * (seconds - 1), `energy ${JSON.stringify(g0.energy)}: a sample a second over ${seconds} s`);
  assert.equal(g0.energy['mean/s'], Math.round((g0.energy.total / seconds) * 1000) / 1000, 'mean/s is the total over the seconds');
  assert.equal(
    energyFrames.reduce((a, e) => a + Number(e.total), 0),
    g0.energy.total,
    "the frames' energy adds up to the job total",
  );
  assert.deepEqual(total('/dev/nvidia1').usage.energy, { total: 0, 'min/s': 0, 'mean/s': 0, 'median/s': 0, 'max/s': 0 }, "GPU 1's counter does not move");
  // PCIe: the rate times the time between the first and the last sample (about the run's length)
  const realS = Number(total('*').jobrealtime) / 1e6;
  assert.ok(Math.abs(g0.read.total - 4096 * 1024 * realS) <= 4096 * 1024, `read ${g0.read.total} for ${realS} s at 4 MiB/s`);
  assert.ok(Math.abs(g0.write.total - 1024 * 1024 * realS) <= 1024 * 1024, `write ${g0.write.total}`);
  assert.ok(g0.read['max/s'] >= g0.read['mean/s'] && g0.read['mean/s'] === Math.round((g0.read.total / seconds) * 1000) / 1000);
  const all = total('*');
  assert.equal(all.cumulative, true);
  assert.deepEqual(all.usage.utilisation, { 'min/s': 30, 'mean/s': 30, 'median/s': 30, 'max/s': 30 }, 'each second: the mean of 55 % and 5 %');
  assert.equal(all.usage.temperature.max, 61);
  assert.equal(all.usage.read.total, Number(g0.read.total) + Number(total('/dev/nvidia1').usage.read.total));
  assert.equal(all.usage.energy.total, g0.energy.total);
  assert.equal(all.usage.mem.max, 3 * 2 ** 30 + 2 * 2 ** 30, 'GPU 1 keeps its default 2 GiB used');
});

test("each frame's PCIe bytes are those of its own seconds, and the frames add up to the job total", async () => {
  const out = join(dir, 'frames.jsonl');
  const r = await runJobio(['run', '--nvml-library', fakeLibrary, '--timeframe', '2s', '-o', out, '--', '/bin/sleep', '4.2'], { env: { JOBIO_FAKE_NVML_CONFIG: config } });
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  const g0 = records.filter((x) => x.type === 'gpu' && x.gpu === '/dev/nvidia0');
  const frames = g0.filter((x) => x.jobtotal === false);
  // Two 2 s frames; a run that ends 0.5 s or more after the second (a loaded machine starts `sleep`
  // late) gets a last 1 s frame of its own rather than losing those seconds.
  const lengths = frames.map((x) => x.timeframe);
  assert.ok(JSON.stringify(lengths) === '["2s","2s"]' || JSON.stringify(lengths) === '["2s","2s","1s"]', `frames ${JSON.stringify(lengths)}`);
  // gpu0 sends 1 MiB/s: a frame holds about 1 MiB per second of it (its last second may run up to the end of the run)
  // the two whole frames; a last short frame holds what is left of the run (up to its length)
  for (const [i, f] of frames.entries()) {
    const seconds = Number(String(f.timeframe).replace(/s$/, ''));
    const write = Number(f.usage.write.total);
    if (i < 2) assert.ok(Math.abs(write - seconds * 1024 * 1024) <= 0.7 * 1024 * 1024, `frame write ${write}, about ${seconds} MiB`);
    else assert.ok(write > 0 && write <= (seconds + 0.7) * 1024 * 1024, `last frame write ${write}, at most ${seconds} MiB`);
  }
  const total = g0.find((x) => x.jobtotal === true) as LogRecord;
  assert.equal(
    frames.reduce((a, f) => a + Number(f.usage.write.total), 0),
    total.usage.write.total,
  );
});

test('without NVML there are no gpu records and nothing else changes', async () => {
  const out = join(dir, 'none.jsonl');
  const r = await runJobio(['run', '--nvml-library', '/nonexistent/libnvidia-ml.so.1', '-o', out, '--', '/bin/true']);
  assert.equal(r.code, 0, r.stderr);
  const records = readValidLog(readFileSync(out, 'utf8'));
  assert.equal(records.filter((x) => x.type === 'gpu').length, 0);
  assert.ok(records.some((x) => x.type === 'jobsummary'));
});
