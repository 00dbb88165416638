// Client certificates the way the exporter-toolkit (Go crypto/tls) treats them, for every
// client_auth_type, plus client_allowed_sans, cipher_suites and curve_preferences, each checked with
// a real TLS client against the built exporter. The refusals are counted in the self-metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:https';
import { connect, type ConnectionOptions } from 'node:tls';
import { startExporter, type RunningExporter } from '../helpers/exporter.js';
import { makeCa, makeSelfSignedCert, makeSelfSignedClient, type ClientCert } from '../helpers/tls.js';

const server = makeSelfSignedCert();
const ca = makeCa(server.dir);
const signed = ca.client('signed', 'DNS:scraper.example');
const selfSigned = makeSelfSignedClient(server.dir, 'selfsigned', 'DNS:scraper.example');

/** GET /metrics with an optional client certificate: the HTTP status, or "refused" if the connection was closed. */
function get(exporter: RunningExporter, client?: ClientCert): Promise<number | 'refused'> {
  return new Promise((resolveStatus) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: exporter.port,
        path: '/metrics',
        agent: false,
        ca: readFileSync(server.cert),
        ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolveStatus(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolveStatus('refused'));
    req.end();
  });
}

async function withExporter<T>(tlsYaml: string, body: (e: RunningExporter) => Promise<T>): Promise<T> {
  const file = join(server.dir, `web-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, `tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n${tlsYaml}`);
  const exporter = await startExporter(['--collector.disable-defaults', `--web.config.file=${file}`], { scheme: 'https' });
  try {
    return await body(exporter);
  } finally {
    await exporter.stop();
  }
}

async function selfMetric(exporter: RunningExporter, pattern: RegExp): Promise<number> {
  const text = await new Promise<string>((resolveText, reject) => {
    const req = request(
      { host: '127.0.0.1', port: exporter.port, path: '/metrics', agent: false, ca: readFileSync(server.cert), cert: readFileSync(signed.cert), key: readFileSync(signed.key) },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString('utf8')));
        res.on('end', () => resolveText(body));
      },
    );
    req.on('error', reject);
    req.end();
  });
  const m = pattern.exec(text);
  assert.ok(m?.[1], `${String(pattern)} in\n${text}`);
  return Number(m[1]);
}

test('every client_auth_type lets in and refuses exactly what Go crypto/tls does', async () => {
  // [type, no certificate, CA-signed certificate, self-signed certificate]
  const table: Array<[string, number | 'refused', number | 'refused', number | 'refused']> = [
    ['NoClientCert', 200, 200, 200],
    ['RequestClientCert', 200, 200, 200],
    ['RequireAnyClientCert', 'refused', 200, 200],
    ['VerifyClientCertIfGiven', 200, 200, 'refused'],
    ['RequireAndVerifyClientCert', 'refused', 200, 'refused'],
  ];
  for (const [type, none, good, self] of table) {
    const caLine = type === 'NoClientCert' ? '' : '  client_ca_file: ca.crt\n';
    await withExporter(`  client_auth_type: ${type}\n${caLine}`, async (exporter) => {
      assert.deepEqual([await get(exporter), await get(exporter, signed), await get(exporter, selfSigned)], [none, good, self], type);
      if (type === 'RequireAnyClientCert') assert.equal(await selfMetric(exporter, /^jobio_web_tls_client_refused_total\{reason="missing_cert"\} (\d+)$/m), 1);
      if (type === 'VerifyClientCertIfGiven') assert.equal(await selfMetric(exporter, /^jobio_web_tls_client_refused_total\{reason="unverified_cert"\} (\d+)$/m), 1);
      if (type === 'RequireAndVerifyClientCert') {
        assert.equal(await selfMetric(exporter, /^jobio_web_tls_client_refused_total\{reason="missing_cert"\} (\d+)$/m), 1);
        assert.equal(await selfMetric(exporter, /^jobio_web_tls_client_refused_total\{reason="unverified_cert"\} (\d+)$/m), 1);
      }
    });
  }
});

test('client_allowed_sans: only certificates with an allowed DNS, IP, email or URI SAN get in', async () => {
  const clients: Array<[ClientCert, number | 'refused']> = [
    [signed, 200],
    [ca.client('other-dns', 'DNS:other.example'), 'refused'],
    [ca.client('by-ip', 'IP:10.0.0.7'), 200],
    [ca.client('by-email', 'email:prom@example.org'), 200],
    [ca.client('by-uri', 'URI:spiffe://cluster/prom'), 200],
    [ca.client('near-miss', 'DNS:scraper.example.evil, email:other@example.org'), 'refused'],
    // An allowed name spelled inside SANs of other kinds: a directory name and a UPN otherName.
    [ca.client('lookalikes', 'dirName:dir_sect, otherName:1.3.6.1.4.1.311.20.2.3;UTF8:DNS:scraper.example, email:other@example.org', '[dir_sect]\nCN=DNS:scraper.example\n'), 'refused'],
  ];
  const sans = ['scraper.example', '10.0.0.7', 'prom@example.org', 'spiffe://cluster/prom'].map((s) => `    - '${s}'\n`).join('');
  await withExporter(`  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n  client_allowed_sans:\n${sans}`, async (exporter) => {
    const seen = [];
    for (const [client] of clients) seen.push(await get(exporter, client));
    assert.deepEqual(
      seen,
      clients.map(([, expected]) => expected),
    );
    assert.equal(await selfMetric(exporter, /^jobio_web_tls_client_refused_total\{reason="san_not_allowed"\} (\d+)$/m), 3);
  });
});

/** Handshake outcome with the given client options: the negotiated cipher's standard name, or "failed". */
function handshake(exporter: RunningExporter, options: ConnectionOptions): Promise<string> {
  return new Promise((resolveName) => {
    const socket = connect({ host: '127.0.0.1', port: exporter.port, ca: readFileSync(server.cert), servername: undefined, checkServerIdentity: () => undefined, ...options }, () => {
      const name = socket.getCipher().standardName;
      socket.end();
      resolveName(name);
    });
    socket.on('error', () => resolveName('failed'));
  });
}

test('cipher_suites restrict TLS 1.2 only and curve_preferences restrict key exchange', async () => {
  await withExporter('  cipher_suites:\n    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n  curve_preferences:\n    - CurveP384\n', async (exporter) => {
    const tls12 = { maxVersion: 'TLSv1.2' as const, ecdhCurve: 'P-384' };
    assert.equal(await handshake(exporter, { ...tls12, ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }), 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
    assert.equal(await handshake(exporter, { ...tls12, ciphers: 'ECDHE-RSA-AES256-GCM-SHA384' }), 'failed');
    assert.equal(await handshake(exporter, { ...tls12, ciphers: 'ECDHE-RSA-AES128-GCM-SHA256', ecdhCurve: 'X25519' }), 'failed');
    // TLS 1.3 keeps its own suites, as in Go.
    assert.equal(await handshake(exporter, { minVersion: 'TLSv1.3', ecdhCurve: 'P-384', ciphers: 'TLS_AES_256_GCM_SHA384' }), 'TLS_AES_256_GCM_SHA384');
    assert.equal(await selfMetric(exporter, /^jobio_web_connections_dropped_total\{reason="tls_handshake"\} (\d+)$/m), 2);
  });
});
