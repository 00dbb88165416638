// TLS and basic auth the way Prometheus exporters do it (exporter-toolkit web config), checked with
// curl as an admin would, and with a real Prometheus scraping over HTTPS with credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { startExporter } from '../helpers/exporter.js';
import { makeSelfSignedCert } from '../helpers/tls.js';
import { requireBinary } from '../helpers/binaries.js';
import { startPrometheus } from '../helpers/prometheus.js';

function curl(args: string[]): { code: number; status: string; body: string } {
  const bin = requireBinary('curl');
  const r = spawnSync(bin, ['-sS', '-o', '-', '-w', '\n%{http_code}', ...args], { encoding: 'utf8' });
  const lines = r.stdout.split('\n');
  const status = lines.pop() ?? '';
  return { code: r.status ?? -1, status, body: lines.join('\n') };
}

test('HTTPS with basic auth: curl and a real Prometheus get in, wrong credentials get 401', async () => {
  const tls = makeSelfSignedCert();
  // $2y$ is what htpasswd writes; the exporter-toolkit accepts it, so must we.
  const hash = bcrypt.hashSync('s3cret', 10).replace(/^\$2b\$/, '$2y$');
  const webConfig = join(tls.dir, 'web.yml');
  writeFileSync(
    webConfig,
    `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n  prometheus: '${hash}'\nhttp_server_config:\n  headers:\n    X-Content-Type-Options: nosniff\n`,
  );
  const exporter = await startExporter(['--collector.disable-defaults', `--web.config.file=${webConfig}`], { scheme: 'https' });
  try {
    const ok = curl(['--cacert', tls.cert, '-u', 'prometheus:s3cret', `${exporter.url}/metrics`]);
    assert.equal(ok.status, '200');
    assert.match(ok.body, /^jobio_build_info\{/m);

    const headers = execFileSync(requireBinary('curl'), ['-sS', '-D', '-', '-o', '/dev/null', '--cacert', tls.cert, '-u', 'prometheus:s3cret', `${exporter.url}/metrics`], { encoding: 'utf8' });
    assert.match(headers, /x-content-type-options: nosniff/i);

    const wrongPassword = curl(['--cacert', tls.cert, '-u', 'prometheus:wrong', `${exporter.url}/metrics`]);
    assert.equal(wrongPassword.status, '401');
    const wrongUser = curl(['--cacert', tls.cert, '-u', 'mallory:s3cret', `${exporter.url}/metrics`]);
    assert.equal(wrongUser.status, '401');
    const none = curl(['--cacert', tls.cert, `${exporter.url}/metrics`]);
    assert.equal(none.status, '401');
    const garbage = curl(['--cacert', tls.cert, '-H', 'Authorization: Basic %%%not-base64', `${exporter.url}/metrics`]);
    assert.equal(garbage.status, '401');

    const plain = curl([`http://127.0.0.1:${exporter.port}/metrics`]);
    assert.notEqual(plain.status, '200', 'plain HTTP is not served on the TLS port');
    assert.equal(exporter.child.exitCode, null, 'bad requests never crash the exporter');

    const prometheus = await startPrometheus([
      { job: 'jobio', address: `127.0.0.1:${exporter.port}`, scheme: 'https', insecureSkipVerify: true, basicAuth: { username: 'prometheus', password: 's3cret' } },
    ]);
    try {
      const up = await prometheus.waitFor('up{job="jobio"}', (s) => s.length === 1 && s[0]?.value === 1);
      assert.equal(up[0]?.value, 1);
    } finally {
      await prometheus.stop();
    }
  } finally {
    await exporter.stop();
  }
});
