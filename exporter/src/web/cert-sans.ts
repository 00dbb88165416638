// The subject alternative names of an X.509 certificate, read from its DER bytes (RFC 5280 4.2.1.6).
// Node offers them only as one display string ("DNS:a, DirName:CN=…, othername:UPN:…"), in which a
// name of another kind can spell `DNS:prometheus` inside its own value: matching on that string let a
// directory name or a UPN otherName pass for a DNS name. Here only the four kinds
// `client_allowed_sans` speaks of are returned, each from its own ASN.1 tag; every other kind
// (otherName, x400Address, directoryName, ediPartyName, registeredID) is skipped whole.

export type SanKind = 'dns' | 'ip' | 'email' | 'uri';

export interface San {
  readonly kind: SanKind;
  readonly value: string;
}

interface Element {
  readonly tag: number;
  /** Start and end of the content octets. */
  readonly start: number;
  readonly end: number;
}

/** The DER element at `at`, or throws on a length that runs past `limit`. */
function element(der: Uint8Array, at: number, limit: number): Element {
  if (at + 2 > limit) throw new Error('truncated DER');
  const tag = der[at] ?? 0;
  if ((tag & 0x1f) === 0x1f) throw new Error('multi-byte DER tags are not used in certificates');
  let length = der[at + 1] ?? 0;
  let start = at + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > limit) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < octets; i += 1) length = length * 256 + (der[start + i] ?? 0);
    start += octets;
  }
  const end = start + length;
  if (end > limit) throw new Error('DER element runs past its parent');
  return { tag, start, end };
}

/** The elements inside a constructed element. */
function children(der: Uint8Array, parent: Element): Element[] {
  const out: Element[] = [];
  for (let at = parent.start; at < parent.end;) {
    const child = element(der, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

const SEQUENCE = 0x30;
const EXTENSIONS = 0xa3; // [3] EXPLICIT in TBSCertificate
const OID = 0x06;
const OCTET_STRING = 0x04;
/** id-ce-subjectAltName, 2.5.29.17. */
const SAN_OID = [0x55, 0x1d, 0x11];
/** GeneralName's implicit primitive tags of the kinds we read. */
const KINDS: ReadonlyMap<number, SanKind> = new Map([
  [0x81, 'email'], // [1] rfc822Name
  [0x82, 'dns'], // [2] dNSName
  [0x86, 'uri'], // [6] uniformResourceIdentifier
  [0x87, 'ip'], // [7] iPAddress
]);

function ipText(bytes: Uint8Array): string | undefined {
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.length !== 16) return undefined;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/** The DNS, IP, email and URI names of the certificate; [] when it has none or cannot be read. */
export function certificateSans(der: Uint8Array): San[] {
  try {
    const certificate = element(der, 0, der.length);
    const [tbs] = children(der, certificate);
    if (certificate.tag !== SEQUENCE || tbs?.tag !== SEQUENCE) return [];
    const extensions = children(der, tbs).find((e) => e.tag === EXTENSIONS);
    const list = extensions ? children(der, extensions)[0] : undefined;
    if (!list) return [];
    for (const extension of children(der, list)) {
      const parts = children(der, extension);
      const oid = parts[0];
      const value = parts[parts.length - 1];
      if (oid?.tag !== OID || value?.tag !== OCTET_STRING) continue;
      const id = der.subarray(oid.start, oid.end);
      if (id.length !== SAN_OID.length || !SAN_OID.every((b, i) => id[i] === b)) continue;
      const names = element(der, value.start, value.end);
      const sans: San[] = [];
      for (const name of children(der, names)) {
        const kind = KINDS.get(name.tag);
        if (!kind) continue;
        const bytes = der.subarray(name.start, name.end);
        const text = kind === 'ip' ? ipText(bytes) : Buffer.from(bytes).toString('latin1');
        if (text !== undefined) sans.push({ kind, value: text });
      }
      return sans;
    }
    return [];
  } catch {
    return [];
  }
}
