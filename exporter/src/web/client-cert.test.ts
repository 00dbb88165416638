import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateSans } from './cert-sans.js';
import { makeAllowedSans } from './client-cert.js';

/** A self-signed certificate made by openssl with the given subjectAltName (and config sections). */
function certWith(san: string, sections = ''): X509Certificate {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-san-'));
  try {
    writeFileSync(join(dir, 'req.cnf'), `[req]\ndistinguished_name=dn\n[dn]\n[ext]\nsubjectAltName=${san}\n${sections}`);
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=t'];
    execFileSync('openssl', [...args, '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-config', join(dir, 'req.cnf'), '-extensions', 'ext'], { stdio: 'ignore' });
    return new X509Certificate(readFileSync(join(dir, 'c.pem')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('SANs are read from the certificate by kind: DNS, IP (v4 and v6), email and URI', () => {
  const cert = certWith('DNS:scraper.example, IP:10.0.0.7, IP:2001:db8::1, email:prom@example.org, URI:spiffe://cluster/prom');
  assert.deepEqual(certificateSans(cert.raw), [
    { kind: 'dns', value: 'scraper.example' },
    { kind: 'ip', value: '10.0.0.7' },
    { kind: 'ip', value: '2001:db8:0:0:0:0:0:1' },
    { kind: 'email', value: 'prom@example.org' },
    { kind: 'uri', value: 'spiffe://cluster/prom' },
  ]);
  assert.deepEqual(certificateSans(Buffer.from('not a certificate')), []);
});

test('a name spelled inside a directory name or a UPN otherName is no DNS SAN', () => {
  const cert = certWith('dirName:dir_sect, otherName:1.3.6.1.4.1.311.20.2.3;UTF8:DNS:prometheus, email:x@example.org', '[dir_sect]\nCN=DNS:prometheus\n');
  // Node's display string has both lookalikes; the certificate's DNS names are none.
  assert.match(cert.subjectAltName ?? '', /DirName:CN=DNS:prometheus, othername:UPN:DNS:prometheus/);
  assert.deepEqual(certificateSans(cert.raw), [{ kind: 'email', value: 'x@example.org' }]);
  assert.equal(makeAllowedSans(['prometheus'])(cert), false);
});

test('allowed SANs match exactly, IPv6 in any spelling', () => {
  const allowed = makeAllowedSans(['scraper.example', '2001:db8::1']);
  assert.equal(allowed(certWith('DNS:scraper.example')), true);
  assert.equal(allowed(certWith('DNS:scraper.example.evil')), false);
  assert.equal(allowed(certWith('DNS:other.example, IP:2001:DB8:0:0:0:0:0:1')), true);
  assert.equal(allowed(certWith('email:scraper.example@x')), false);
});
