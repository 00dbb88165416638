import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { makeCa } from '../../../test/helpers/tls.js';
import { loadWebConfig, parseWebConfig, WebConfigError } from './web-config.js';

const HASH = '$2y$10$hNmUPaElgNK7d7.OR57NW.tQVd70DJY8ZfLpww.0GG86QrmpWMdUi';

function tempFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-webcfg-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('an empty file means plain HTTP without auth', () => {
  const config = loadWebConfig(tempFile('web.yml', ''));
  assert.equal(config.tls, undefined);
  assert.equal(config.basicAuthUsers.size, 0);
});

test('reads basic auth users and headers', () => {
  const config = parseWebConfig({ basic_auth_users: { alice: HASH }, http_server_config: { headers: { 'X-Frame-Options': 'deny' } } }, 'web.yml');
  assert.equal(config.basicAuthUsers.get('alice'), HASH);
  assert.equal(config.headers.get('X-Frame-Options'), 'deny');
});

test('every error names the file and the field', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ tls_server_config: { cert_file: 'missing.crt', key_file: 'missing.key' } }, /web.yml: tls_server_config.cert_file: cannot read .*missing.crt/],
    [{ basic_auth_users: { bob: 'plaintext' } }, /web.yml: basic_auth_users.bob: expected a bcrypt hash/],
    [{ basic_auth_user: {} }, /web.yml: basic_auth_user: unknown field/],
    [{ tls_server_config: { cert_fil: 'x' } }, /web.yml: tls_server_config.cert_fil: unknown field/],
    [['a'], /web.yml: \(top level\): expected a mapping/],
    [{ http_server_config: { headers: { A: 1 } } }, /http_server_config.headers.A: expected a string/],
  ];
  for (const [doc, pattern] of cases) {
    assert.throws(
      () => parseWebConfig(doc, 'web.yml'),
      (err: Error) => err instanceof WebConfigError && pattern.test(err.message),
      String(pattern),
    );
  }
});

test('a file that is not YAML or cannot be read is a clear error', () => {
  assert.throws(() => loadWebConfig(tempFile('bad.yml', 'basic_auth_users: [unclosed')), /bad.yml is not valid YAML/);
  assert.throws(() => loadWebConfig('/nonexistent/web.yml'), /cannot read web config file \/nonexistent\/web.yml/);
});

test('TLS files are resolved relative to the config file and min_version is checked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-webcfg-'));
  writeFileSync(join(dir, 'server.crt'), 'CERT');
  writeFileSync(join(dir, 'server.key'), 'KEY');
  const file = join(dir, 'web.yml');
  writeFileSync(file, 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: TLS13\n');
  const config = loadWebConfig(file);
  assert.equal(config.tls?.cert.toString(), 'CERT');
  assert.equal(config.tls.minVersion, 'TLSv1.3');
  writeFileSync(file, 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: SSL3\n');
  assert.throws(() => loadWebConfig(file), /tls_server_config.min_version: must be one of/);
});

function tlsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-webcfg-'));
  for (const name of ['server.crt', 'server.key']) writeFileSync(join(dir, name), 'PEM');
  // The client CA bundle is checked when the file is read: a real one.
  makeCa(dir);
  return join(dir, 'web.yml');
}

test('a client_ca_file without a usable certificate is refused at start (every client certificate would fail the handshake)', () => {
  const file = tlsDir();
  const ca = readFileSync(join(dirname(file), 'ca.crt'), 'latin1');
  const tls = { cert_file: 'server.crt', key_file: 'server.key', client_auth_type: 'RequireAndVerifyClientCert', client_ca_file: 'bundle.pem' };
  const cases: Array<[string, RegExp]> = [
    ['not a certificate\n', /tls_server_config.client_ca_file: .*bundle.pem: no PEM certificate/],
    ['', /no PEM certificate/],
    [`${ca}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`, /bundle.pem: certificate 2 of 2 does not parse/],
  ];
  for (const [text, pattern] of cases) {
    writeFileSync(join(dirname(file), 'bundle.pem'), text);
    assert.throws(
      () => parseWebConfig({ tls_server_config: tls }, file),
      (err: Error) => err instanceof WebConfigError && pattern.test(err.message),
      String(pattern),
    );
  }
  writeFileSync(join(dirname(file), 'bundle.pem'), `# site CAs\n${ca}${ca}`);
  assert.equal(parseWebConfig({ tls_server_config: tls }, file).tls?.ca?.toString('latin1'), `# site CAs\n${ca}${ca}`);
});

test('mistakes that used to break the server later are refused at start, naming the file and field', () => {
  const file = tlsDir();
  const tls = (extra: Record<string, unknown>): unknown => ({ tls_server_config: { cert_file: 'server.crt', key_file: 'server.key', ...extra } });
  const cost31 = HASH.replace('$10$', '$31$');
  const cases: Array<[unknown, RegExp]> = [
    [{ basic_auth_users: { alice: cost31 } }, /web.yml: basic_auth_users.alice: bcrypt cost 31 is outside 4-14/],
    [{ basic_auth_users: { alice: HASH.replace('$10$', '$03$') } }, /basic_auth_users.alice: bcrypt cost 3 is outside 4-14/],
    [{ http_server_config: { headers: { 'X-Frame-Options': 'deny\r\nSet-Cookie: a=b' } } }, /web.yml: http_server_config.headers.X-Frame-Options: invalid header value/],
    [{ http_server_config: { headers: { 'Bad Name': 'x' } } }, /http_server_config.headers.Bad Name: invalid header name/],
    [tls({ min_version: 'TLS13', max_version: 'TLS12' }), /web.yml: tls_server_config.max_version: TLS12 is below min_version TLS13/],
    [tls({ min_version: 'TLS10' }), /web.yml: tls_server_config.min_version: TLS10 is not supported .*use TLS12 or TLS13/],
    [tls({ min_version: 'TLS11' }), /web.yml: tls_server_config.min_version: TLS11 is not supported/],
    [tls({ max_version: 'TLS11' }), /web.yml: tls_server_config.max_version: TLS11 is not supported/],
    [tls({ cipher_suites: ['TLS_BOGUS'] }), /web.yml: tls_server_config.cipher_suites: unknown cipher suite "TLS_BOGUS"/],
    [tls({ cipher_suites: ['TLS_AES_128_GCM_SHA256'] }), /tls_server_config.cipher_suites: TLS_AES_128_GCM_SHA256 is a TLS 1.3 suite/],
    [tls({ cipher_suites: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' }), /tls_server_config.cipher_suites: expected a list of names/],
    [tls({ curve_preferences: ['CurveP999'] }), /web.yml: tls_server_config.curve_preferences: unknown curve "CurveP999"/],
    [tls({ prefer_server_cipher_suites: 'yes' }), /tls_server_config.prefer_server_cipher_suites: expected true or false/],
    [tls({ client_auth_type: 'RequireAndVerifyClientCert', client_ca_file: 'ca.crt', client_allowed_sans: 'a' }), /tls_server_config.client_allowed_sans: expected a list of names/],
    [
      tls({ client_auth_type: 'VerifyClientCertIfGiven', client_ca_file: 'ca.crt', client_allowed_sans: ['a'] }),
      /tls_server_config.client_allowed_sans: requires client_auth_type RequireAnyClientCert or RequireAndVerifyClientCert/,
    ],
    [tls({ client_ca_file: 'ca.crt' }), /tls_server_config.client_ca_file: set without a client_auth_type that asks for certificates/],
  ];
  for (const [doc, pattern] of cases) {
    assert.throws(
      () => parseWebConfig(doc, file),
      (err: Error) => err instanceof WebConfigError && pattern.test(err.message),
      String(pattern),
    );
  }
});

test('cipher_suites and curve_preferences are mapped onto the OpenSSL names Node uses', () => {
  const file = tlsDir();
  const config = parseWebConfig(
    {
      tls_server_config: {
        cert_file: 'server.crt',
        key_file: 'server.key',
        cipher_suites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
        curve_preferences: ['X25519', 'CurveP256'],
        prefer_server_cipher_suites: false,
        client_auth_type: 'RequireAndVerifyClientCert',
        client_ca_file: 'ca.crt',
        client_allowed_sans: ['scraper.example', '10.0.0.7'],
      },
    },
    file,
  );
  // TLS 1.3 suites stay at OpenSSL's defaults: Go's cipher_suites covers TLS 1.2 and below only.
  assert.equal(config.tls?.ciphers, 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305');
  assert.equal(config.tls.ecdhCurve, 'X25519:P-256');
  assert.equal(config.tls.honorCipherOrder, false);
  assert.deepEqual(config.tls.allowedSans, ['scraper.example', '10.0.0.7']);
  const defaults = parseWebConfig({ tls_server_config: { cert_file: 'server.crt', key_file: 'server.key' } }, file);
  assert.equal(defaults.tls?.ciphers, undefined);
  assert.equal(defaults.tls?.honorCipherOrder, true);
});

test('bcrypt hashes the checker cannot verify are refused at start: $2$ and $2x$ (they used to refuse every password at login)', async () => {
  const { compare, hashSync } = await import('bcryptjs');
  const rest = HASH.slice(4); // "10$" + salt and hash
  for (const version of ['$2a$', '$2b$', '$2y$']) {
    const hash = version + rest;
    assert.equal(parseWebConfig({ basic_auth_users: { alice: hash } }, 'web.yml').basicAuthUsers.get('alice'), hash);
  }
  for (const version of ['$2$', '$2x$']) {
    assert.throws(
      () => parseWebConfig({ basic_auth_users: { alice: version + rest } }, 'web.yml'),
      (err: Error) =>
        err instanceof WebConfigError && err.message === `web config file web.yml: basic_auth_users.alice: bcrypt version ${version} is not supported: use $2y$ (htpasswd -B), $2b$ or $2a$`,
      version,
    );
  }
  // What the refused ones would have done: the checker's bcrypt never accepts a $2$ hash, not even of the right password.
  const real = hashSync('secret', 4);
  assert.equal(await compare('secret', real), true);
  assert.equal(await compare('secret', `$2$${real.slice(4)}`), false);
});
