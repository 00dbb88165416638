import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    assert.throws(() => parseWebConfig(doc, 'web.yml'), (err: Error) => err instanceof WebConfigError && pattern.test(err.message), String(pattern));
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
  assert.equal(config.tls?.minVersion, 'TLSv1.3');
  writeFileSync(file, 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  min_version: SSL3\n');
  assert.throws(() => loadWebConfig(file), /tls_server_config.min_version: must be one of/);
});
