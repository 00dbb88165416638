// The web configuration file (`--web.config.file`), in the format of the Prometheus exporter-toolkit
// so one file serves node_exporter and jobio alike:
//   tls_server_config: { cert_file, key_file, client_auth_type, client_ca_file, min_version, max_version,
//                        cipher_suites, curve_preferences, prefer_server_cipher_suites, client_allowed_sans }
//   basic_auth_users: { <user>: <bcrypt hash> }
//   http_server_config: { headers: { <name>: <value> } }
// Errors name the file and the field, so a mistake fails start-up instead of surfacing later as a
// hung start (huge bcrypt cost), a 500 on every request (CR/LF in a header) or failing handshakes.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { dirname, resolve } from 'node:path';
import { opensslCiphers, opensslCurves } from './tls-names.js';
import { isRecord } from '../util/is-record.js';

export type ClientAuthType = 'NoClientCert' | 'RequestClientCert' | 'RequireAnyClientCert' | 'VerifyClientCertIfGiven' | 'RequireAndVerifyClientCert';
const CLIENT_AUTH_TYPES: readonly ClientAuthType[] = ['NoClientCert', 'RequestClientCert', 'RequireAnyClientCert', 'VerifyClientCertIfGiven', 'RequireAndVerifyClientCert'];
const TLS_VERSIONS: Record<string, 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3'> = { TLS10: 'TLSv1', TLS11: 'TLSv1.1', TLS12: 'TLSv1.2', TLS13: 'TLSv1.3' };
/** Client auth types under which a client must present a certificate (the only ones SAN checks make sense with). */
const CERT_REQUIRED: readonly ClientAuthType[] = ['RequireAnyClientCert', 'RequireAndVerifyClientCert'];

/**
 * bcrypt costs accepted in basic_auth_users. Each step doubles the work: cost 10 takes ~0.1 s per
 * check, 14 about 1.6 s, and 31 would run for days, hanging start-up. htpasswd -B writes 5 by default.
 */
export const BCRYPT_MIN_COST = 4;
export const BCRYPT_MAX_COST = 14;

export interface TlsConfig {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca?: Buffer;
  readonly clientAuth: ClientAuthType;
  readonly minVersion: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  readonly maxVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** Node `ciphers` (OpenSSL names) from cipher_suites; undefined keeps Node's defaults. */
  readonly ciphers?: string;
  /** Node `ecdhCurve` from curve_preferences. */
  readonly ecdhCurve?: string;
  /** prefer_server_cipher_suites (exporter-toolkit default: true). */
  readonly honorCipherOrder: boolean;
  /** client_allowed_sans: a client certificate must carry one of these SANs. */
  readonly allowedSans?: readonly string[];
}

export interface WebConfig {
  readonly tls?: TlsConfig;
  /** user → bcrypt hash */
  readonly basicAuthUsers: ReadonlyMap<string, string>;
  readonly headers: ReadonlyMap<string, string>;
}

export class WebConfigError extends Error {}

/**
 * The bcrypt hashes the password checker can verify: `$2a$`, `$2b$` and `$2y$` (htpasswd -B). A `$2$`
 * or `$2x$` hash used to pass this check and then refuse every password at login (and `$2$` put the
 * cost where the cost check did not look).
 */
const BCRYPT_HASH = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
const BCRYPT_UNSUPPORTED = /^\$2x?\$\d\d\$/;
const KNOWN_TOP = new Set(['tls_server_config', 'basic_auth_users', 'http_server_config']);
const KNOWN_TLS = new Set([
  'cert_file',
  'key_file',
  'client_auth_type',
  'client_ca_file',
  'min_version',
  'max_version',
  'cipher_suites',
  'prefer_server_cipher_suites',
  'curve_preferences',
  'client_allowed_sans',
]);

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

export function loadWebConfig(file: string): WebConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new WebConfigError(`cannot read web config file ${file}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    // Loaded only when a file is given: the YAML parser is about 9 MB of an idle exporter's memory.
    const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
    doc = yaml.parse(text);
  } catch (err) {
    throw new WebConfigError(`web config file ${file} is not valid YAML: ${(err as Error).message}`);
  }
  return parseWebConfig(doc ?? {}, file);
}

/** Validates a parsed document; `file` names the source in errors and anchors relative paths. */
export function parseWebConfig(doc: unknown, file: string): WebConfig {
  const fail = (field: string, why: string): never => {
    throw new WebConfigError(`web config file ${file}: ${field}: ${why}`);
  };
  if (!isRecord(doc)) return fail('(top level)', 'expected a mapping');
  for (const key of Object.keys(doc)) if (!KNOWN_TOP.has(key)) fail(key, 'unknown field');

  const baseDir = dirname(resolve(file));
  const readPem = (field: string, path: unknown): Buffer => {
    if (typeof path !== 'string' || path === '') return fail(field, 'expected a file path');
    const full = resolve(baseDir, path);
    try {
      return readFileSync(full);
    } catch (err) {
      return fail(field, `cannot read ${full}: ${(err as Error).message}`);
    }
  };

  let tls: TlsConfig | undefined;
  const tlsDoc = doc.tls_server_config;
  if (tlsDoc !== undefined && tlsDoc !== null) {
    if (!isRecord(tlsDoc)) return fail('tls_server_config', 'expected a mapping');
    for (const key of Object.keys(tlsDoc)) if (!KNOWN_TLS.has(key)) fail(`tls_server_config.${key}`, 'unknown field');
    const cert = readPem('tls_server_config.cert_file', tlsDoc.cert_file);
    const key = readPem('tls_server_config.key_file', tlsDoc.key_file);
    const clientAuth = (tlsDoc.client_auth_type ?? 'NoClientCert') as ClientAuthType;
    if (!CLIENT_AUTH_TYPES.includes(clientAuth)) fail('tls_server_config.client_auth_type', `must be one of ${CLIENT_AUTH_TYPES.join(', ')}`);
    const ca = tlsDoc.client_ca_file !== undefined ? readPem('tls_server_config.client_ca_file', tlsDoc.client_ca_file) : undefined;
    const caProblem = ca ? caBundleProblem(ca) : undefined;
    if (caProblem !== undefined) fail('tls_server_config.client_ca_file', `${resolve(baseDir, String(tlsDoc.client_ca_file))}: ${caProblem}`);
    if (clientAuth.includes('Verify') && !ca) fail('tls_server_config.client_ca_file', `required with client_auth_type ${clientAuth}`);
    if (ca && clientAuth === 'NoClientCert') fail('tls_server_config.client_ca_file', 'set without a client_auth_type that asks for certificates (as the exporter-toolkit, this is refused)');
    const versionNames = Object.keys(TLS_VERSIONS);
    const minName = tlsDoc.min_version === undefined ? 'TLS12' : versionText(tlsDoc.min_version);
    const maxName = tlsDoc.max_version === undefined ? undefined : versionText(tlsDoc.max_version);
    const minVersion = TLS_VERSIONS[minName] ?? fail('tls_server_config.min_version', `must be one of ${versionNames.join(', ')}`);
    const maxVersion = maxName === undefined ? undefined : (TLS_VERSIONS[maxName] ?? fail('tls_server_config.max_version', `must be one of ${versionNames.join(', ')}`));
    // Named by the exporter-toolkit, but the OpenSSL Node links refuses TLS 1.0 and 1.1 handshakes at its
    // security level: accepted, they would not be honoured, so they are refused here.
    for (const [field, name] of [
      ['min_version', minName],
      ['max_version', maxName],
    ] as const) {
      if (name === 'TLS10' || name === 'TLS11') fail(`tls_server_config.${field}`, `${name} is not supported (the OpenSSL of this Node refuses TLS 1.0 and 1.1 handshakes); use TLS12 or TLS13`);
    }
    if (maxVersion && maxName !== undefined && versionNames.indexOf(maxName) < versionNames.indexOf(minName)) {
      fail('tls_server_config.max_version', `${maxName} is below min_version ${minName}: no handshake could succeed`);
    }
    const mapNames = (field: string, value: unknown, map: (names: readonly string[]) => string): string | undefined => {
      if (value === undefined || value === null) return undefined;
      const names = stringList(value) ?? fail(`tls_server_config.${field}`, 'expected a list of names');
      if (names.length === 0) return undefined;
      try {
        return map(names);
      } catch (err) {
        return fail(`tls_server_config.${field}`, (err as Error).message);
      }
    };
    const ciphers = mapNames('cipher_suites', tlsDoc.cipher_suites, opensslCiphers);
    const ecdhCurve = mapNames('curve_preferences', tlsDoc.curve_preferences, opensslCurves);
    const prefer = tlsDoc.prefer_server_cipher_suites ?? true;
    if (typeof prefer !== 'boolean') fail('tls_server_config.prefer_server_cipher_suites', 'expected true or false');
    let allowedSans: string[] | undefined;
    if (tlsDoc.client_allowed_sans !== undefined && tlsDoc.client_allowed_sans !== null) {
      allowedSans = stringList(tlsDoc.client_allowed_sans) ?? fail('tls_server_config.client_allowed_sans', 'expected a list of names');
      if (!CERT_REQUIRED.includes(clientAuth)) {
        fail('tls_server_config.client_allowed_sans', `requires client_auth_type ${CERT_REQUIRED.join(' or ')} (with ${clientAuth} a client may send no certificate to check)`);
      }
    }
    tls = {
      cert,
      key,
      clientAuth,
      minVersion,
      honorCipherOrder: prefer as boolean,
      ...(ca ? { ca } : {}),
      ...(maxVersion ? { maxVersion } : {}),
      ...(ciphers ? { ciphers } : {}),
      ...(ecdhCurve ? { ecdhCurve } : {}),
      ...(allowedSans ? { allowedSans } : {}),
    };
  }

  const basicAuthUsers = new Map<string, string>();
  const usersDoc = doc.basic_auth_users;
  if (usersDoc !== undefined && usersDoc !== null) {
    if (!isRecord(usersDoc)) return fail('basic_auth_users', 'expected a mapping of user name to bcrypt hash');
    for (const [user, hash] of Object.entries(usersDoc)) {
      if (user.includes(':')) fail(`basic_auth_users.${user}`, 'user names cannot contain ":"');
      if (typeof hash === 'string' && BCRYPT_UNSUPPORTED.test(hash))
        fail(`basic_auth_users.${user}`, `bcrypt version ${hash.slice(0, hash.indexOf('$', 1) + 1)} is not supported: use $2y$ (htpasswd -B), $2b$ or $2a$`);
      if (typeof hash !== 'string' || !BCRYPT_HASH.test(hash)) fail(`basic_auth_users.${user}`, 'expected a bcrypt hash ($2y$..., e.g. from `htpasswd -nBC 10 "" | tr -d \':\\n\'`)');
      const cost = Number((hash as string).slice(4, 6));
      if (cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST) {
        fail(`basic_auth_users.${user}`, `bcrypt cost ${cost} is outside ${BCRYPT_MIN_COST}-${BCRYPT_MAX_COST} (each step doubles the time of every login check)`);
      }
      basicAuthUsers.set(user, hash as string);
    }
  }

  const headers = new Map<string, string>();
  const httpDoc = doc.http_server_config;
  if (httpDoc !== undefined && httpDoc !== null) {
    if (!isRecord(httpDoc)) return fail('http_server_config', 'expected a mapping');
    const hdrs = httpDoc.headers;
    if (hdrs !== undefined) {
      if (!isRecord(hdrs)) return fail('http_server_config.headers', 'expected a mapping');
      for (const [name, value] of Object.entries(hdrs)) {
        if (typeof value !== 'string') fail(`http_server_config.headers.${name}`, 'expected a string');
        // The checks Node applies when the header is set on a response, run once here instead.
        try {
          validateHeaderName(name);
        } catch {
          fail(`http_server_config.headers.${name}`, "invalid header name (letters, digits and !#$%&'*+-.^_`|~ only)");
        }
        try {
          validateHeaderValue(name, value as string);
        } catch {
          fail(`http_server_config.headers.${name}`, 'invalid header value (control characters such as CR or LF are not allowed)');
        }
        headers.set(name, value as string);
      }
    }
  }
  return { basicAuthUsers, headers, ...(tls ? { tls } : {}) };
}

/** A version as written in the YAML (`TLS13`); anything else prints as YAML would have it, and matches no version. */
function versionText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Why a client CA bundle cannot verify anyone, or undefined. Node (like Go) takes a file without a
 * usable certificate silently, and every client certificate is then refused at the handshake: a
 * typo'd path to the wrong file would look like a network problem on every scrape.
 */
function caBundleProblem(pem: Buffer): string | undefined {
  const blocks = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'no PEM certificate (-----BEGIN CERTIFICATE-----) in the file';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch (err) {
      return `certificate ${i + 1} of ${blocks.length} does not parse: ${(err as Error).message}`;
    }
  }
  return undefined;
}
