// Flux job ids in one spelling. Flux writes the same 64-bit id several ways: decimal (`flux submit`),
// F58 with a UTF-8 `ƒ` prefix (`flux jobs`, and FLUX_JOB_ID in a job's environment where the locale
// allows it), and F58 with an ASCII `f` (the "f58plain" encoding Flux uses in its systemd unit names,
// and F58 under a non-UTF-8 locale). jobio labels every Flux job with the ASCII form, so a job found
// through its unit cgroup and the same job found through its environment carry one `jobid`, and the
// label stays plain ASCII. F58 is base58 over the bitcoin alphabet (no 0, O, I, l).

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE = 58n;
const MAX_ID = (1n << 64n) - 1n;

/** An F58 id after its prefix: 1 to 11 base58 digits (2^64 needs 11). */
const F58_DIGITS = /^[1-9A-HJ-NP-Za-km-z]{1,11}$/;

/** The ASCII F58 ("f58plain") spelling of a 64-bit Flux job id. */
export function fluxF58Plain(id: bigint): string {
  let rest = id;
  let digits = '';
  do {
    digits = ALPHABET.charAt(Number(rest % BASE)) + digits;
    rest /= BASE;
  } while (rest > 0n);
  return `f${digits}`;
}

/** The numeric value of base58 digits, or undefined past 64 bits. */
function decodeF58(digits: string): bigint | undefined {
  let value = 0n;
  for (const c of digits) value = value * BASE + BigInt(ALPHABET.indexOf(c));
  return value <= MAX_ID ? value : undefined;
}

/**
 * A Flux job id as jobio labels it (`f<base58>`), from any of Flux's spellings: `ƒ…`, `f…` or
 * decimal. Undefined for anything else (including ids past 64 bits), so a malformed value never
 * becomes a label.
 */
export function canonicalFluxJobId(text: string): string | undefined {
  if (/^\d{1,20}$/.test(text)) {
    const value = BigInt(text);
    return value <= MAX_ID ? fluxF58Plain(value) : undefined;
  }
  const digits = text.startsWith('ƒ') ? text.slice('ƒ'.length) : text.startsWith('f') ? text.slice(1) : undefined;
  if (digits === undefined || !F58_DIGITS.test(digits)) return undefined;
  const value = decodeF58(digits);
  return value === undefined ? undefined : fluxF58Plain(value);
}
