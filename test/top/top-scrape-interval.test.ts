// `jobio top --prometheus` with default flags against a real Prometheus scraping every 30 s, as the
// shipped provisioning/prometheus/prometheus.yml does: the default 10 s interval holds at most one
// sample per series, so the window is widened to 4 scrape intervals (read from the targets API) and
// the title says so; the rows are there. (It waits for the second scrape: up to a minute.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJobio, startExporter } from '../helpers/exporter.js';
import { startPrometheus } from '../helpers/prometheus.js';
import { treePaths, writeSnapshot } from './tree.js';

test('jobio top --prometheus, default flags, 30 s scrapes: a widened window, said, and rows', async () => {
  const root = mkdtempSync(join(tmpdir(), 'jobio-top-30s-'));
  writeSnapshot(root, { jobs: {}, clients: {} });
  const exporter = await startExporter(['--collector.disable-defaults', '--collector.lustre_jobstats', ...treePaths(root)]);
  let step = 0;
  const writer = setInterval(() => {
    step += 1;
    writeSnapshot(root, { jobs: { '101:5000:n1': { wrMiB: step }, '202:5001:n3': { rdMiB: step } }, clients: {} });
  }, 1000);
  const prom = await startPrometheus([{ job: 'lustre', address: `127.0.0.1:${exporter.port}` }], { scrapeInterval: '30s' });
  try {
    // Two samples of both jobs: the first scrape comes at a random offset within 30 s, the second 30 s later.
    await prom.waitFor('count_over_time(jobio_lustre_jobstats_write_bytes_total{jobid="101"}[2m]) >= 2', (s) => s.length === 1, 80_000);
    const result = await runJobio(['top', '--prometheus', prom.url, '--once']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, '');
    const [title, header, ...rows] = result.stdout.trimEnd().split('\n');
    assert.match(title ?? '', /^jobio top — by job, 2m window \(widened from --interval 10s to 4 × the 30s scrape interval\), http:\/\/127\.0\.0\.1:\d+ — /);
    assert.match(header ?? '', /^JOB +WR_MB +RD_MB +REQS +MDT_REQS +OWNER +TARGETS$/);
    // Both jobs grow by 1 MiB a second: over two samples 30 s apart, about 30 MiB each (increase() extrapolates a little).
    assert.deepEqual(rows.map((r) => r.split(/\s+/)[0]).sort(), ['101', '202'], result.stdout);
    const row101 = rows.find((r) => r.startsWith('101 '))?.split(/\s+/) ?? [];
    assert.ok(Number(row101[1]) > 0 && row101[5] === 'alice', result.stdout);
    // An --interval that holds enough scrapes is used as given.
    const wide = await runJobio(['top', '--prometheus', prom.url, '--once', '--interval', '5m']);
    assert.match(wide.stdout.split('\n')[0] ?? '', /^jobio top — by job, 5m interval, /);
  } finally {
    clearInterval(writer);
    await prom.stop();
    await exporter.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
