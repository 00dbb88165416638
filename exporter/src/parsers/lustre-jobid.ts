// Decodes a job_stats `job_id` as printed into the identifier the job really had.
//
// Lustre 2.15.2+ puts an id in double quotes when it holds a character outside [A-Za-z0-9.@_-]
// (2.16+: also when it holds ':' or starts with '@') and writes such characters as `\xHH`:
// `"kworker\x2F86\x3A1.0"` is `kworker/86:1.0`. Older versions print the id raw (2.12–2.14 replace
// non-printable characters with '?'). The raw form stays the entry's identity; this decoded form
// is what gets classified and shown.

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** `raw` is the id as a latin1 string of the file's bytes; the result is decoded as UTF-8. */
export function decodeJobId(raw: string): string {
  let body = raw;
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  if (quoted) body = raw.slice(1, -1);
  // Fast path: plain ASCII without escapes is already the answer.
  if (!(quoted && body.includes('\\')) && !/[^\x20-\x7e]/.test(body)) return body;
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i += 1) {
    const c = body.charCodeAt(i);
    if (quoted && c === 92 /* \ */ && body[i + 1] === 'x' && i + 3 < body.length) {
      const hi = hexValue(body.charCodeAt(i + 2));
      const lo = hexValue(body.charCodeAt(i + 3));
      if (hi >= 0 && lo >= 0) {
        bytes.push(hi * 16 + lo);
        i += 3;
        continue;
      }
    }
    bytes.push(c & 0xff);
  }
  return Buffer.from(bytes).toString('utf8');
}
