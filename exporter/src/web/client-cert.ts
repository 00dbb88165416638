// Client-certificate policy after the TLS handshake, with the semantics of Go's crypto/tls client
// auth types as the exporter-toolkit uses them. Node's rejectUnauthorized covers only "require and
// verify", and silently; every type is checked here instead, on the established connection before
// any HTTP byte is read (as Node does for rejectUnauthorized), so each refusal is counted:
//   NoClientCert, RequestClientCert   anything goes (a certificate, if sent, is not verified)
//   RequireAnyClientCert              a certificate is required, but not verified
//   VerifyClientCertIfGiven           no certificate is fine; one that is sent must verify
//   RequireAndVerifyClientCert        a verified certificate is required
// plus client_allowed_sans: the certificate must carry one of the listed SANs (DNS, IP, email, URI).
import { isIP, SocketAddress } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TlsConfig } from './web-config.js';

export type ClientCertRefusal = 'missing_cert' | 'unverified_cert' | 'san_not_allowed';
export const CLIENT_CERT_REFUSALS: readonly ClientCertRefusal[] = ['missing_cert', 'unverified_cert', 'san_not_allowed'];

/** The values of Node's `subjectAltName` string ("DNS:a, IP Address:10.0.0.1, email:…, URI:…"). */
export function sanValues(subjectAltName: string | undefined): string[] {
  const values: string[] = [];
  // Node JSON-quotes values that contain separators or quotes.
  for (const m of (subjectAltName ?? '').matchAll(/(DNS|IP Address|email|URI):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g)) {
    const raw = m[2] ?? '';
    values.push(raw.startsWith('"') ? (JSON.parse(raw) as string) : raw);
  }
  return values;
}

/** IP addresses in one canonical spelling (Node writes IPv6 SANs uncompressed, Go compressed). */
function canonical(value: string): string {
  const family = isIP(value);
  if (family === 0) return value;
  try {
    return new SocketAddress({ address: value, family: family === 6 ? 'ipv6' : 'ipv4' }).address;
  } catch {
    return value;
  }
}

export function makeAllowedSans(allowed: readonly string[]): (subjectAltName: string | undefined) => boolean {
  const set = new Set(allowed.map(canonical));
  return (subjectAltName) => sanValues(subjectAltName).some((v) => set.has(canonical(v)));
}

/** Why the connection must be closed, or undefined when the client may go on. */
export function clientCertRefusal(socket: TLSSocket, tls: TlsConfig, sanAllowed?: (san: string | undefined) => boolean): ClientCertRefusal | undefined {
  if (tls.clientAuth === 'NoClientCert' || tls.clientAuth === 'RequestClientCert') return undefined;
  const cert = socket.getPeerX509Certificate();
  if (!cert) return tls.clientAuth === 'VerifyClientCertIfGiven' ? undefined : 'missing_cert';
  if (tls.clientAuth !== 'RequireAnyClientCert' && !socket.authorized) return 'unverified_cert';
  if (sanAllowed && !sanAllowed(cert.subjectAltName)) return 'san_not_allowed';
  return undefined;
}
