// Client-certificate policy after the TLS handshake, with the semantics of Go's crypto/tls client
// auth types as the exporter-toolkit uses them. Node's rejectUnauthorized covers only "require and
// verify", and silently; every type is checked here instead, on the established connection before
// any HTTP byte is read (as Node does for rejectUnauthorized), so each refusal is counted:
//   NoClientCert, RequestClientCert   anything goes (a certificate, if sent, is not verified)
//   RequireAnyClientCert              a certificate is required, but not verified
//   VerifyClientCertIfGiven           no certificate is fine; one that is sent must verify
//   RequireAndVerifyClientCert        a verified certificate is required
// plus client_allowed_sans: the certificate must carry one of the listed SANs (DNS, IP, email, URI),
// read from the certificate's own SAN extension (cert-sans.ts), never from Node's display string.
import { isIP, SocketAddress } from 'node:net';
import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { certificateSans } from './cert-sans.js';
import type { TlsConfig } from './web-config.js';

export type ClientCertRefusal = 'missing_cert' | 'unverified_cert' | 'san_not_allowed';
export const CLIENT_CERT_REFUSALS: readonly ClientCertRefusal[] = ['missing_cert', 'unverified_cert', 'san_not_allowed'];

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

/** Whether a certificate carries one of `allowed` as a DNS, IP, email or URI SAN (exact match, IPs in any spelling). */
export function makeAllowedSans(allowed: readonly string[]): (cert: X509Certificate) => boolean {
  const set = new Set(allowed.map(canonical));
  return (cert) => certificateSans(cert.raw).some((san) => set.has(san.kind === 'ip' ? canonical(san.value) : san.value));
}

/** Why the connection must be closed, or undefined when the client may go on. */
export function clientCertRefusal(socket: TLSSocket, tls: TlsConfig, sanAllowed?: (cert: X509Certificate) => boolean): ClientCertRefusal | undefined {
  if (tls.clientAuth === 'NoClientCert' || tls.clientAuth === 'RequestClientCert') return undefined;
  const cert = socket.getPeerX509Certificate();
  if (!cert) return tls.clientAuth === 'VerifyClientCertIfGiven' ? undefined : 'missing_cert';
  if (tls.clientAuth !== 'RequireAnyClientCert' && !socket.authorized) return 'unverified_cert';
  if (sanAllowed && !sanAllowed(cert)) return 'san_not_allowed';
  return undefined;
}
