// PCIe rate → byte counter integration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PcieIntegrator } from './pcie-integrator.js';

test('first sample starts the clock; later ones add rate × interval (KB = 1024 bytes)', () => {
  const p = new PcieIntegrator();
  assert.deepEqual(p.add('GPU-a', 1000, 100, 50), { rx: 0, tx: 0 });
  assert.deepEqual(p.add('GPU-a', 3000, 100, 50), { rx: 204800, tx: 102400 });
  assert.deepEqual(p.add('GPU-a', 4000, undefined, 0), { rx: 204800, tx: 102400 });
  assert.deepEqual(p.add('GPU-a', 3500, 100, 100), { rx: 204800, tx: 102400 }, 'a clock step back adds nothing');
});

test('GPUs that left are forgotten and start again from zero', () => {
  const p = new PcieIntegrator();
  p.add('GPU-a', 0, 1, 1);
  p.add('GPU-a', 1000, 1, 1);
  p.retain(new Set());
  assert.deepEqual(p.add('GPU-a', 2000, 1, 1), { rx: 0, tx: 0 });
});
