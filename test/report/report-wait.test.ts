// `jobio report JOBID --wait`: the report of a job that has just ended waits for Prometheus' next
// scrape of the job's series. A real Prometheus scrapes a stand-in exporter that logs when it was
// scraped (the oracle): the wait ends only once that exporter has served a scrape after the moment
// asked for, and gives up (false) when the job has no series or its exporter is no longer scraped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPrometheus } from '../helpers/prometheus.js';
import { waitForScrapeAfter } from '../../exporter/src/report/scrape-wait.js';

test('--wait ends after a scrape of the job taken after the asked time, and gives up without one', async () => {
  const served: number[] = [];
  let up = true;
  const exporter = createServer((_req, res) => {
    if (!up) {
      res.writeHead(503).end();
      return;
    }
    served.push(Date.now() / 1000);
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end('jobio_profiler_runtime_seconds_total{jobid="7",user="alice"} 1.5\n');
  });
  await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', r));
  const prometheus = await startPrometheus([{ job: 'jobio', address: `127.0.0.1:${(exporter.address() as AddressInfo).port}` }]);
  try {
    await prometheus.waitFor('jobio_profiler_runtime_seconds_total{jobid="7"}', (s) => s.length === 1, 30_000);
    const afterS = Date.now() / 1000 + 2;
    assert.equal(await waitForScrapeAfter({ url: prometheus.url, jobid: '7', afterS, maxMs: 30_000, timeoutMs: 5000, pollMs: 100 }), true);
    assert.ok(
      served.some((t) => t >= afterS),
      `the exporter was scraped after ${afterS} before the wait ended (${served.slice(-3).join(', ')})`,
    );

    // a job Prometheus has no series of: no scrape will do
    assert.equal(await waitForScrapeAfter({ url: prometheus.url, jobid: '8', afterS: Date.now() / 1000, maxMs: 1500, timeoutMs: 5000, pollMs: 100 }), false);

    // the job's exporter is no longer scraped: its last sample stays older than the asked time
    up = false;
    const count = served.length;
    assert.equal(await waitForScrapeAfter({ url: prometheus.url, jobid: '7', afterS: Date.now() / 1000 + 1, maxMs: 3000, timeoutMs: 5000, pollMs: 100 }), false);
    assert.equal(served.length, count);
  } finally {
    await prometheus.stop();
    await new Promise((r) => exporter.close(r));
  }
});
