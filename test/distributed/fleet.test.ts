// The fleet measurement of `npm run bench -- fleet`, small and short: 2 compute nodes and 2 Lustre
// servers through the sharded setup. Checks what the benchmark's figures rest on (no timings): every
// series each exporter serves reaches VictoriaMetrics once, per host kind, and every figure is measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureFleet, type FleetShape } from './fleet.js';

const SMALL: FleetShape = { computeNodes: 2, nodesPerJob: 1, mds: 1, oss: 1, ostsPerOss: 2, jobsPerOst: 5, jobsPerMdt: 5, gpusPerNode: 1 };

test('fleet (small): VictoriaMetrics holds exactly the series the exporters serve, per host kind; memory, samples and scrape times are measured', async () => {
  const f = await measureFleet(SMALL, { interval: 1, seconds: 4, tickMs: 200, profilerEveryMs: 500 });
  for (const kind of ['compute', 'lustre-server'] as const) {
    const k = f.kinds[kind];
    assert.equal(k.hosts, 2);
    assert.equal(k.seriesPerHost, k.exportedSeriesPerHost, `${kind}: series in VictoriaMetrics vs served`);
    assert.ok(k.seriesPerHost > 20, `${kind}: ${k.seriesPerHost} series per host`);
    assert.ok(k.scrapeSecondsAvg > 0 && k.scrapeSecondsMax >= k.scrapeSecondsAvg, `${kind} scrape durations ${k.scrapeSecondsAvg} ${k.scrapeSecondsMax}`);
    assert.ok(k.exporterRssAvg > 0);
  }
  // 2 OSTs and 1 MDT, 5 jobs each: every job has its own series on each target.
  assert.ok(f.seriesPerOst >= 5 * 4, `series per OST ${f.seriesPerOst}`);
  assert.ok(f.seriesPerMdt >= 5 * 4, `series per MDT ${f.seriesPerMdt}`);
  assert.ok(f.samplesPerSecond > 0);
  assert.ok(f.singleHeadSeries >= f.kinds.compute.seriesPerHost * 2 + f.kinds['lustre-server'].seriesPerHost * 2, `single Prometheus head series ${f.singleHeadSeries}`);
  for (const rss of [f.rss.vm, f.rss.vmalert, f.rss.single, ...f.rss.scrapers]) assert.ok(rss > 0);
  assert.equal(f.rss.scrapers.length, 2);
  assert.equal(f.profilerSnapshots.failed, 0);
  assert.ok(f.profilerSnapshots.ok > 0);
});
