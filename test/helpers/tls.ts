// Throw-away TLS material for tests: a self-signed certificate for 127.0.0.1 made with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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
  execFileSync(openssl, ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
    stdio: 'ignore',
  });
  return { dir, cert, key };
}

export interface ClientCert {
  readonly cert: string;
  readonly key: string;
}

export interface TestCa {
  readonly dir: string;
  readonly cert: string;
  /**
   * A client certificate signed by this CA, with the given subjectAltName (e.g. "DNS:scraper.example");
   * `sections` are added to the extension file (the `[dir_sect]` of a `dirName:dir_sect`).
   */
  client(name: string, san: string, sections?: string): ClientCert;
}

/** A throw-away CA (P-256 keys: fast to make) for client-certificate tests. */
export function makeCa(dir = mkdtempSync(join(tmpdir(), 'jobio-ca-'))): TestCa {
  const openssl = requireBinary('openssl');
  const cert = join(dir, 'ca.crt');
  const key = join(dir, 'ca.key');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  execFileSync(openssl, ['req', '-x509', ...ec, '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=jobio test CA'], { stdio: 'ignore' });
  return {
    dir,
    cert,
    client(name, san, sections = '') {
      const out = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
      const csr = join(dir, `${name}.csr`);
      const ext = join(dir, `${name}.ext`);
      writeFileSync(ext, `subjectAltName=${san}\nextendedKeyUsage=clientAuth\n${sections}`);
      execFileSync(openssl, ['req', '-new', ...ec, '-keyout', out.key, '-out', csr, '-subj', `/CN=${name}`], { stdio: 'ignore' });
      execFileSync(openssl, ['x509', '-req', '-in', csr, '-CA', cert, '-CAkey', key, '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', out.cert], { stdio: 'ignore' });
      return out;
    },
  };
}

/** A self-signed client certificate (trusted by nobody) with the given subjectAltName. */
export function makeSelfSignedClient(dir: string, name: string, san: string): ClientCert {
  const openssl = requireBinary('openssl');
  const out = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  execFileSync(
    openssl,
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', out.key, '-out', out.cert, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`],
    { stdio: 'ignore' },
  );
  return out;
}
