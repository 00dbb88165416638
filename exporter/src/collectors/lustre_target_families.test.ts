import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Registry } from 'prom-client';
import { renderToString } from '../scrape/exposition-writer.js';
import type { Labels } from '../scrape/metric-family.js';
import { combinedFamily } from './lustre_target_families.js';

test('combinedFamily: equal label sets make one series, summed, where the set first appears, as prom-client inc() wrote them', async () => {
  // a file system mounted twice: both places are mount="_several", so their counts add up
  const adds: [Labels, number][] = [
    [{ fs: 'a', mount: '_several', jobid: '1' }, 5],
    [{ fs: 'a', mount: '/mnt/b', jobid: '1' }, 1],
    [{ fs: 'a', mount: '_several', jobid: '2' }, 0],
    [{ fs: 'a', mount: '_several', jobid: '1' }, 7.5],
    [{ fs: 'a', mount: 'q"uote', jobid: '3' }, 2],
  ];
  const registry = new Registry();
  const counter = new Counter({ name: 'jobio_test_bytes_total', help: 'h', labelNames: ['fs', 'mount', 'jobid'], registers: [registry] });
  for (const [labels, value] of adds) counter.inc(labels as Record<string, string>, value);
  const ours = await renderToString([[combinedFamily('jobio_test_bytes_total', 'h', 'counter', (add) => adds.forEach(([labels, value]) => add(labels, value)))]]);
  assert.equal(ours, await registry.metrics());
  assert.match(ours, /^jobio_test_bytes_total\{fs="a",mount="_several",jobid="1"\} 12\.5$/m);
  assert.equal(ours.split('\n').filter((l) => l.startsWith('jobio_test_bytes_total{')).length, 4);
});

test("combinedFamily 'last': a label set's last value where the set first appears, as prom-client's Gauge set() wrote it", async () => {
  const sets: [Labels, number][] = [
    [{ net: 'tcp', nid: '10.0.0.1@tcp' }, 1],
    [{ net: 'o2ib', nid: '10.0.0.2@o2ib' }, 1],
    [{ net: 'tcp', nid: '10.0.0.1@tcp' }, 0],
  ];
  const registry = new Registry();
  const gauge = new Gauge({ name: 'jobio_test_up', help: 'h', labelNames: ['net', 'nid'], registers: [registry] });
  for (const [labels, value] of sets) gauge.set(labels as Record<string, string>, value);
  const ours = await renderToString([[combinedFamily('jobio_test_up', 'h', 'gauge', (add) => sets.forEach(([labels, value]) => add(labels, value)), 'last')]]);
  assert.equal(ours, await registry.metrics());
  assert.match(ours, /^jobio_test_up\{net="tcp",nid="10\.0\.0\.1@tcp"\} 0$/m);
});
