// The NVML addon on its own: argument checks at the JS boundary, no library → "no-library" (not a
// throw), and the fake library read through it, including R535's 32-byte process entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadNvmlAddon } from '../../exporter/src/gpu/nvml-addon.js';
import { fakeConfig, fakeLibrary } from './harness.js';

const { Nvml } = loadNvmlAddon();

test('nvml addon: arguments are validated with precise messages', () => {
  assert.throws(() => new (Nvml as unknown as new (x: unknown) => unknown)(3), /libraryPath must be a string/);
  assert.throws(() => new Nvml(''), /must not be empty/);
  const nvml = new Nvml('/nonexistent/libnvidia-ml.so.1');
  assert.throws(() => (nvml.sample as unknown as (x: unknown) => unknown)({}), /options.pcie must be a boolean/);
  assert.throws(() => (nvml.init as unknown as (x: unknown) => unknown)(1), /takes no arguments/);
});

test('nvml addon: a missing library is reported as no-library, quietly', async () => {
  const result = await new Nvml('/nonexistent/libnvidia-ml.so.1').init();
  assert.equal(result.status, 'no-library');
  assert.match(result.error.message, /cannot open shared object file/);
});

test('nvml addon: the fake library, both process-entry strides', async () => {
  for (const stride of [24, 32]) {
    process.env.JOBIO_FAKE_NVML_CONFIG = fakeConfig(['gpus=2', 'gpu0.pids=101,102,103', `proc_stride=${stride}`, 'gpu1.name=Renamed']);
    const nvml = new Nvml(fakeLibrary);
    assert.deepEqual(await nvml.init(), { status: 'ok' });
    const sample = await nvml.sample({ pcie: true, processes: true });
    assert.deepEqual(sample.errors, []);
    assert.equal(sample.devices.length, 2);
    assert.deepEqual(sample.devices[0]?.pids, [101, 102, 103], `stride ${stride}`);
    assert.deepEqual(sample.devices[1]?.pids, []);
    assert.equal(sample.devices[1].name, 'Renamed');
    assert.equal(sample.devices[0].pcieRxKilobytesPerSecond, 2048);
    const quick = await nvml.sample({ pcie: false, processes: false });
    assert.equal(quick.devices[0]?.pcieRxKilobytesPerSecond, undefined);
    assert.equal(quick.devices[0]?.pids, undefined);
    await nvml.shutdown();
  }
});
