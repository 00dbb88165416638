// The paths the exporter serves answer other methods with 405 and the methods they take (they
// answered 404, as if the path did not exist); unknown paths stay 404 whatever the method.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startExporter } from '../helpers/exporter.js';

test('OPTIONS, POST, PUT and DELETE on /metrics, /healthz and /: 405 with Allow: GET, HEAD; an unknown path: 404', async () => {
  const exporter = await startExporter(['--collector.disable-defaults']);
  try {
    for (const path of ['/metrics', '/healthz', '/']) {
      for (const method of ['OPTIONS', 'POST', 'PUT', 'DELETE']) {
        const res = await fetch(`${exporter.url}${path}`, { method });
        assert.equal(res.status, 405, `${method} ${path}`);
        assert.equal(res.headers.get('allow'), 'GET, HEAD', `${method} ${path}`);
        await res.text();
      }
      const ok = await fetch(`${exporter.url}${path}`, { method: 'HEAD' });
      assert.equal(ok.status, 200, `HEAD ${path}`);
    }
    for (const method of ['GET', 'POST', 'OPTIONS']) {
      const res = await fetch(`${exporter.url}/nothing-here`, { method });
      assert.equal(res.status, 404, `${method} /nothing-here`);
      await res.text();
    }
  } finally {
    await exporter.stop();
  }
});
