import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseSampling, measureClockNs } from './sampling.js';

test('a 0 sampling factor is chosen from the clock: every call on a cheap clock, fewer and at most 1000/s on a slow one', () => {
  assert.deepEqual(chooseSampling({ sampleEvery: 0, sampleMaxPerSec: 0 }, 40), { sampleEvery: 1, sampleMaxPerSec: 0 });
  assert.deepEqual(chooseSampling({ sampleEvery: 0, sampleMaxPerSec: 0 }, 450), { sampleEvery: 5, sampleMaxPerSec: 0 });
  assert.deepEqual(chooseSampling({ sampleEvery: 0, sampleMaxPerSec: 0 }, 1500), { sampleEvery: 15, sampleMaxPerSec: 1000 });
  assert.deepEqual(chooseSampling({ sampleEvery: 0, sampleMaxPerSec: 50 }, 1500), { sampleEvery: 15, sampleMaxPerSec: 50 }, 'a limit given stays');
  assert.deepEqual(chooseSampling({ sampleEvery: 8, sampleMaxPerSec: 0 }, 1500), { sampleEvery: 8, sampleMaxPerSec: 0 }, 'a factor given stays');
  const ns = measureClockNs();
  assert.ok(ns > 0 && Number.isFinite(ns), `measured ${ns} ns`);
});
