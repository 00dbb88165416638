// A jobid_name format matched on an id's bytes, without the id as a string and a regular expression
// match: a first scrape classifies every entry's id (100,000 ids: ~30 MB of decoded strings, match arrays
// and their substrings, and most of the classification's time).
//
// Only where it gives the regular expression's answer by construction (jobid-format.ts compileOne): ids
// of printable ASCII, and formats in which each code's characters cannot include the literal that
// follows it (`%j:%u:%H`; not `%e.%u`, whose executable may hold dots, nor two codes side by side). Then
// each code takes the longest run of its characters, and the match is the only one. Anything else is
// left to the regular expression (program undefined, or match() called on bytes it does not take).

/** One step: a literal byte, or a code taking a run of the bytes its table marks (at least `min`). */
interface Step {
  readonly code: string | undefined;
  readonly byte: number;
  readonly table: Uint8Array | undefined;
  readonly min: number;
}

export interface ByteProgram {
  readonly steps: readonly Step[];
  /** The codes' steps, in order (as the expression's groups). */
  readonly codes: number;
}

/** Where each code's value is in the id: [start, end) per code, in order. */
export type CodeSpans = Int32Array;

const PRINTABLE_FIRST = 0x20;
const PRINTABLE_LAST = 0x7e;

function tableOf(accepts: (c: number) => boolean): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = PRINTABLE_FIRST; c <= PRINTABLE_LAST; c += 1) table[c] = accepts(c) ? 1 : 0;
  return table;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlnum = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/** The characters of each code but %j (jobid-format.ts CODE_PATTERNS), and whether it may be empty. */
const CODE_TABLES: Record<string, Uint8Array> = {
  e: tableOf(() => true),
  u: tableOf(isDigit),
  g: tableOf(isDigit),
  p: tableOf(isDigit),
  H: tableOf((c) => isAlnum(c) || c === 95 || c === 45),
  h: tableOf((c) => isAlnum(c) || c === 95 || c === 46 || c === 45),
};

/**
 * The program of a format, or undefined where the longest run of a code is not the expression's answer.
 * `tokens`: the format as literal characters and codes (`%%` already a literal '%').
 */
export function compileBytes(tokens: readonly { readonly literal?: string; readonly code?: string }[]): ByteProgram | undefined {
  const steps: Step[] = [];
  let codes = 0;
  for (let i = 0; i < tokens.length; i += 1) {
    const { literal, code } = tokens[i] as { literal?: string; code?: string };
    if (literal !== undefined) {
      const byte = literal.charCodeAt(0);
      if (literal.length !== 1 || byte < PRINTABLE_FIRST || byte > PRINTABLE_LAST) return undefined;
      steps.push({ code: undefined, byte, table: undefined, min: 0 });
      continue;
    }
    const before = tokens[i - 1]?.literal ?? '';
    const after = tokens[i + 1]?.literal ?? '';
    // %j: anything but the literals beside it, maybe empty (jobid-format.ts jobIdPattern).
    const table = code === 'j' ? tableOf((c) => String.fromCharCode(c) !== before && String.fromCharCode(c) !== after) : code === undefined ? undefined : CODE_TABLES[code];
    if (table === undefined) return undefined;
    const next = tokens[i + 1];
    if (next !== undefined && (next.literal === undefined || table[next.literal.charCodeAt(0)] === 1)) return undefined;
    steps.push({ code, byte: -1, table, min: code === 'j' ? 0 : 1 });
    codes += 1;
  }
  return { steps, codes };
}

/**
 * Whether bytes[start, end) (printable ASCII: the caller checks) match the program; if so, `spans` holds
 * each code's [start, end).
 */
export function matchBytes(program: ByteProgram, bytes: Uint8Array, start: number, end: number, spans: CodeSpans): boolean {
  let at = start;
  let k = 0;
  const { steps } = program;
  for (let s = 0; s < steps.length; s += 1) {
    const step = steps[s] as Step;
    const table = step.table;
    if (table === undefined) {
      if (at >= end || bytes[at] !== step.byte) return false;
      at += 1;
      continue;
    }
    const from = at;
    while (at < end && table[bytes[at] as number] === 1) at += 1;
    if (at - from < step.min) return false;
    spans[k] = from;
    spans[k + 1] = at;
    k += 2;
  }
  return at === end;
}

/**
 * Whether bytes[start, end) are all printable ASCII, and without a backslash if `quoted` (an escape):
 * then the id is its bytes as they are (parsers/lustre-jobid.ts decodeJobId) and has no control character.
 */
export function printableAscii(bytes: Uint8Array, start: number, end: number, quoted: boolean): boolean {
  for (let i = start; i < end; i += 1) {
    const c = bytes[i] as number;
    if (c < PRINTABLE_FIRST || c > PRINTABLE_LAST || (quoted && c === 92)) return false;
  }
  return true;
}

/** The number a run of ASCII digits is (as Number() of its text: past 2^53 as inexact, and never a safe integer then). */
export function digitsValue(bytes: Uint8Array, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i += 1) n = n * 10 + ((bytes[i] as number) - 48);
  return n;
}
