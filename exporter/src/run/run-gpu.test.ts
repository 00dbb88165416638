import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nvmlWorthLoading } from './run-gpu.js';

test("NVML is loaded for a library path always, for the driver's soname only where a driver device node exists", () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-nvml-'));
  const node = join(dir, 'nvidiactl');
  const missing = [join(dir, 'none'), join(dir, 'dxg')];
  assert.equal(nvmlWorthLoading('libnvidia-ml.so.1', missing), false);
  assert.equal(nvmlWorthLoading('libnvidia-ml.so', missing), false);
  assert.equal(nvmlWorthLoading('/opt/fake/libnvidia-ml.so.1', missing), true);
  assert.equal(nvmlWorthLoading('libfake-nvml.so', missing), true);
  writeFileSync(node, '');
  assert.equal(nvmlWorthLoading('libnvidia-ml.so.1', [...missing, node]), true);
});
