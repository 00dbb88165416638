// /metrics is gzip-compressed when the scraper asks for it (Accept-Encoding: gzip), as node_exporter
// and client_golang do: the compressed body decompresses to the plain one, curl --compressed and a
// real Prometheus (which always asks for gzip) read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { rawGet, startExporter } from '../helpers/exporter.js';
import { normaliseExposition } from '../helpers/golden.js';
import { requireBinary } from '../helpers/binaries.js';
import { startPrometheus } from '../helpers/prometheus.js';

test('gzip on request: same exposition, smaller, readable by curl --compressed and Prometheus', async () => {
  const exporter = await startExporter(['--collector.disable-defaults']);
  try {
    const url = `${exporter.url}/metrics`;
    const plain = await rawGet(url, {});
    assert.equal(plain.headers['content-encoding'], undefined);
    const zipped = await rawGet(url, { 'Accept-Encoding': 'gzip, deflate' });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.match(String(zipped.headers.vary), /Accept-Encoding/i);
    assert.match(String(zipped.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const unzipped = gunzipSync(zipped.body).toString('utf8');
    assert.equal(normaliseExposition(unzipped), normaliseExposition(plain.body.toString('utf8')));
    assert.ok(zipped.body.length < plain.body.length, `${zipped.body.length} < ${plain.body.length} bytes`);
    // q=0 means "not this encoding".
    const refused = await rawGet(url, { 'Accept-Encoding': 'gzip;q=0, identity' });
    assert.equal(refused.headers['content-encoding'], undefined);

    const curl = spawnSync(requireBinary('curl'), ['-sS', '--compressed', '-D', '-', url], { encoding: 'utf8' });
    assert.equal(curl.status, 0, curl.stderr);
    assert.match(curl.stdout, /content-encoding: gzip/i);
    assert.match(curl.stdout, /^jobio_build_info\{/m);

    const prometheus = await startPrometheus([{ job: 'jobio', address: `127.0.0.1:${exporter.port}` }]);
    try {
      const info = await prometheus.waitFor('jobio_build_info{job="jobio"}', (s) => s.length === 1 && s[0]?.value === 1);
      assert.equal(info[0]?.value, 1);
    } finally {
      await prometheus.stop();
    }
  } finally {
    await exporter.stop();
  }
});
