// The exposition is kept as the writer's buffers of ~64 KB and gzip-compressed as a stream of them: the
// compressed body decompresses to exactly the plain one, in both formats, across buffer boundaries
// (multi-byte characters, escapes), and promtool reads it; through the real exporter, the gzip and plain
// answers of a large exposition are the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { EXPOSITION_END, renderPartChunks, type ExpositionFormat } from '../../exporter/src/scrape/exposition-writer.js';
import type { MetricFamily } from '../../exporter/src/scrape/metric-family.js';
import { MetricRegistry } from '../../exporter/src/scrape/metric-registry.js';
import { ExpositionBodies } from '../../exporter/src/web/exposition-bodies.js';
import { WebMetrics } from '../../exporter/src/web/web-metrics.js';
import { rawGet, startJobStatsExporter } from '../helpers/exporter.js';
import { normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';
import { jobStatsText, syntheticJobs } from '../lustre/generate-jobstats.js';

const SERIES = 30_000;

const families: MetricFamily[] = [
  {
    name: 'jobio_test_bytes_total',
    help: 'Bytes, by job (labels with "quotes", a \\ backslash and UTF-8: Jürgen, 東京).',
    type: 'counter',
    collect: (sink) => {
      for (let i = 0; i < SERIES; i++) sink.sample({ jobid: `${i}`, user: i % 3 === 0 ? 'Jürgen "東京"\\' : 'alice' }, i * 4096);
    },
  },
  { name: 'jobio_test_up', help: 'One.', type: 'gauge', collect: (sink) => sink.sample({}, 1) },
];

test('gzip of the buffers, streamed, is byte for byte the plain exposition (text and OpenMetrics), and promtool reads it', async () => {
  for (const format of ['text', 'openmetrics'] as const satisfies readonly ExpositionFormat[]) {
    const exposition = [...(await renderPartChunks(families, format)), Buffer.from(EXPOSITION_END[format])];
    assert.ok(exposition.length > 10, `${exposition.length} buffers`);
    const bodies = new ExpositionBodies(new WebMetrics(new MetricRegistry()));
    const zipped = await bodies.body(exposition, 'gzip');
    const plain = Buffer.concat(await bodies.body(exposition, 'identity'));
    assert.ok(gunzipSync(Buffer.concat(zipped)).equals(plain), `${format}: gunzipped body differs from the plain one`);
    const text = plain.toString('utf8');
    assert.equal(text.split('\n').filter((l) => l.startsWith('jobio_test_bytes_total')).length, SERIES);
    if (format === 'text') {
      const check = promtoolCheckMetrics(gunzipSync(Buffer.concat(zipped)).toString('utf8'));
      assert.ok(check.ok, check.output);
    } else assert.ok(text.endsWith('\n# EOF\n'));
  }
});

test('the exporter: a large exposition in gzip is the plain one, in both formats', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-gzip-stream-'));
  const target = join(dir, 'proc/fs/lustre/obdfilter/big-OST0000');
  mkdirSync(target, { recursive: true });
  writeFileSync(join(target, 'job_stats'), jobStatsText(syntheticJobs(3000, '2.10'), '2.10'));
  const exporter = await startJobStatsExporter(dir);
  try {
    const url = `${exporter.url}/metrics`;
    for (const accept of ['text/plain;version=0.0.4', 'application/openmetrics-text;version=1.0.0']) {
      const plain = await rawGet(url, { Accept: accept });
      const zipped = await rawGet(url, { Accept: accept, 'Accept-Encoding': 'gzip' });
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(zipped.headers['content-type'], plain.headers['content-type']);
      assert.equal(Number(zipped.headers['content-length']), zipped.body.length);
      assert.ok(plain.body.length > 1 << 20, `${plain.body.length} bytes: more than one buffer`);
      assert.equal(normaliseExposition(gunzipSync(zipped.body).toString('utf8')), normaliseExposition(plain.body.toString('utf8')));
    }
    const text = gunzipSync((await rawGet(url, { 'Accept-Encoding': 'gzip' })).body).toString('utf8');
    const check = promtoolCheckMetrics(text);
    assert.ok(check.ok, check.output);
  } finally {
    await exporter.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
