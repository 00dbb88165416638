// Cipher-suite and curve names as the exporter-toolkit (Go's crypto/tls) spells them in
// `cipher_suites` and `curve_preferences`, mapped onto the OpenSSL names Node's TLS options take.
// Go applies `cipher_suites` to TLS 1.2 and below only (TLS 1.3 suites are not configurable there),
// so the TLS 1.3 suites stay at OpenSSL's defaults and naming one is an error rather than a no-op.
import { getCiphers } from 'node:tls';

/** Go's tls.CipherSuites() names for TLS 1.0–1.2 → OpenSSL cipher names. */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
};
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
/** OpenSSL's default TLS 1.3 suites, kept whatever `cipher_suites` says (Go's rule). */
const TLS13_DEFAULT = 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256';

/** Go's curve names → OpenSSL group names. */
const CURVES: Readonly<Record<string, string>> = { CurveP256: 'P-256', CurveP384: 'P-384', CurveP521: 'P-521', X25519: 'X25519' };

/** The `ciphers` option for Node from Go suite names; throws with the offending name. */
export function opensslCiphers(names: readonly string[]): string {
  const available = new Set(getCiphers());
  const mapped = names.map((name) => {
    if (TLS13_SUITES.includes(name)) throw new Error(`${name} is a TLS 1.3 suite; cipher_suites applies to TLS 1.2 and below only (TLS 1.3 suites are not configurable), remove it`);
    const openssl = TLS12_SUITES[name];
    if (!openssl) throw new Error(`unknown cipher suite "${name}"; known: ${Object.keys(TLS12_SUITES).join(', ')}`);
    if (!available.has(openssl.toLowerCase())) throw new Error(`cipher suite ${name} is not available in this Node.js/OpenSSL build`);
    return openssl;
  });
  return [TLS13_DEFAULT, ...mapped].join(':');
}

/** The `ecdhCurve` option for Node from Go curve names; throws with the offending name. */
export function opensslCurves(names: readonly string[]): string {
  return names
    .map(
      (name) =>
        CURVES[name] ??
        (() => {
          throw new Error(`unknown curve "${name}"; known: ${Object.keys(CURVES).join(', ')}`);
        })(),
    )
    .join(':');
}
