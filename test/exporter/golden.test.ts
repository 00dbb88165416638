// The bare framework's exposition, end to end: the built binary, a golden file, promtool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startExporter, scrape, repoRoot } from '../helpers/exporter.js';
import { assertGolden, normaliseExposition } from '../helpers/golden.js';
import { promtoolCheckMetrics } from '../helpers/promtool.js';

test('--collector.disable-defaults serves self-metrics only, promtool-clean', async () => {
  const exporter = await startExporter(['--collector.disable-defaults']);
  try {
    const text = await scrape(`${exporter.url}/metrics`);
    const lint = promtoolCheckMetrics(text);
    assert.ok(lint.ok, `promtool check metrics:\n${lint.output}`);
    assert.match(text, /^jobio_build_info\{version="[^"]+",nodeversion="v\d+[^"]*",platform="[^"]+"\} 1$/m);
    assertGolden(normaliseExposition(text), join(repoRoot, 'test/golden/exporter/disable-defaults.prom'));
    const landing = await scrape(`${exporter.url}/`);
    assert.match(landing, /<a href="\/metrics">Metrics<\/a>/);
    assert.equal(await scrape(`${exporter.url}/healthz`), 'ok\n');
  } finally {
    await exporter.stop();
  }
});

test('--web.telemetry-path is one literal path: route syntax in it (: * ( { ) neither widens it nor stops start-up', async () => {
  const path = '/m:x/a(b)*{c}';
  const exporter = await startExporter(['--collector.disable-defaults', `--web.telemetry-path=${path}`]);
  try {
    const text = await scrape(`${exporter.url}${encodeURI(path)}`);
    assert.match(text, /^jobio_build_info\{/m);
    for (const other of ['/mfoo/a(b)*{c}', '/m:x/ab', '/m:x/a(b)*', '/metrics', '/%E0%A4%A']) {
      assert.equal((await fetch(`${exporter.url}${other}`)).status, 404, other);
    }
    assert.equal(await scrape(`${exporter.url}/healthz`), 'ok\n');
  } finally {
    await exporter.stop();
  }
});

test('default collectors include the process metrics, promtool-clean', async () => {
  const exporter = await startExporter(['--web.telemetry-path=/custom']);
  try {
    const text = await scrape(`${exporter.url}/custom`);
    assert.ok(promtoolCheckMetrics(text).ok, promtoolCheckMetrics(text).output);
    assert.match(text, /^jobio_scrape_collector_success\{collector="process"\} 1$/m);
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    const missing = await fetch(`${exporter.url}/metrics`);
    assert.equal(missing.status, 404);
  } finally {
    await exporter.stop();
  }
});
