// Throw-away TLS material for tests: a self-signed certificate for 127.0.0.1 made with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';

export interface TlsFiles {
  readonly dir: string;
  readonly cert: string;
  readonly key: string;
}

export function makeSelfSignedCert(): TlsFiles {
  const openssl = requireBinary('openssl');
  const dir = mkdtempSync(join(tmpdir(), 'jobio-tls-'));
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  execFileSync(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { dir, cert, key };
}
