import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Gauge, Histogram, Registry } from 'prom-client';
import { MetricRegistry } from '../scrape/metric-registry.js';
import { promFamilies } from './process.js';

const HELP = 'Help with a \\ backslash, a\nnewline and a "quote".';

test('prom-client metrics as families render as in their own registry (histograms too)', async () => {
  const fill = (registers: Registry[]): void => {
    const h = new Histogram({ name: 'jobio_test_seconds', help: HELP, labelNames: ['kind'], buckets: [0.001, 0.5, 10], registers });
    h.observe({ kind: 'a"b' }, 0.2);
    h.observe({ kind: 'a"b' }, 20);
    h.observe({ kind: 'c' }, 0.0001);
    new Gauge({ name: 'jobio_test_gauge', help: 'g', labelNames: ['x'], registers }).set({ x: '1' }, 3);
  };
  const theirs = new Registry();
  fill([theirs]);
  const source = new Registry();
  fill([source]);
  const ours = new MetricRegistry();
  for (const family of promFamilies(source)) ours.register(family);
  assert.equal(await ours.metrics(), await theirs.metrics());
});
