// Reads a job_stats entry identifier according to the site's `jobid_name` formats and classifies it.
//
// Lustre builds the identifier from `jobid_name` codes (2.12+): %e executable, %g gid, %h FQDN,
// %H short host name, %j job id (from jobid_var, e.g. SLURM_JOB_ID), %p pid, %u uid. Production
// file systems hold a mix (a 2023 study of CSC's Puhti saw `11317854:17627127:r01c01`,
// `:17627127:r01c01`, `11317854:17627127:r01c01.bullx`, `wget.`), so each entry is classified:
//   correct        a format matched and, if it has %j, the job id is not empty. A format without %j
//                  (`%e.%u`, typical of login and utility nodes) is correct: such an entry has no job
//                  by nature (it is exported as jobid="_none" with its executable in `process`)
//   missing_jobid  a format with %j matched with an empty job id (`:17627127:r01c01`)
//   malformed      no format matched, or the id holds control characters (decoded from `\xHH`:
//                  they must never reach a label, nor through it an admin's terminal): the load is
//                  still counted, in jobid="_other"
// An FQDN where %H (short host) is expected does not match: the two are never silently merged.
// A job id may not contain the separator it was split on (the literal characters on either side of %j
// in the format): `:1317854:17627127:r01c01` under `%j:%u:%H` is malformed, not job ":1317854" of
// uid 17627127 (the Puhti study saw such shifted ids, and classes them malformed).

import { canonicalFluxJobId } from '../labels/flux-jobid.js';
import { hasControlChars } from '../labels/control-chars.js';
import { compileBytes, digitsValue, matchBytes, printableAscii, type ByteProgram } from './jobid-bytes.js';

export type JobIdQuality = 'correct' | 'missing_jobid' | 'malformed';
export const JOB_ID_QUALITIES: readonly JobIdQuality[] = ['correct', 'missing_jobid', 'malformed'];

export interface JobIdentity {
  readonly quality: JobIdQuality;
  /** The %j value; set only when quality is `correct` and the matching format has %j. */
  readonly jobid?: string;
  /** The %u value, when the matching format has one. */
  readonly uid?: number;
  /** The %e value (executable), when the matching format has one. */
  readonly process?: string;
}

interface CompiledFormat {
  readonly source: string;
  readonly pattern: RegExp;
  /** Which code each capture group holds, in order. */
  readonly groups: readonly string[];
  /** The same format on an id's bytes, where it gives the expression's answer (jobid-bytes.ts). */
  readonly bytes: ByteProgram | undefined;
}

export interface JobIdFormats {
  readonly formats: readonly CompiledFormat[];
}

// The character classes keep backtracking small: ids are at most 31 characters (LUSTRE_JOBID_SIZE).
const CODE_PATTERNS: Record<string, string> = {
  j: '(.*?)', // a job id may be empty: that is the "missing job id" case
  e: '(.+)', // an executable name may contain dots and colons; the anchors settle the split
  u: '(\\d+)',
  g: '(\\d+)',
  p: '(\\d+)',
  H: '([A-Za-z0-9_-]+)', // short host: no dot
  h: '([A-Za-z0-9_.-]+)', // FQDN
};

/** Longest identifier we try to match; Lustre's limit is 31, the rest is garbage. */
const MAX_ID_LENGTH = 256;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The literal character `source` starts with at `i` (`%%` is a literal `%`), or '' at a code or the end. */
function literalAt(source: string, i: number): string {
  const c = source.charAt(i);
  if (c !== '%') return c;
  return source.charAt(i + 1) === '%' ? '%' : '';
}

/** The %j group: any text except the literal separators beside it ('' when a code or an end is there). */
function jobIdPattern(before: string, after: string): string {
  const excluded = [...new Set([before, after].filter((c) => c !== ''))];
  if (excluded.length === 0) return CODE_PATTERNS['j'] ?? '(.*?)';
  return `([^${excluded.map((c) => c.replace(/[\\\]^-]/g, '\\$&')).join('')}]*?)`;
}

function compileOne(source: string): CompiledFormat {
  let pattern = '^';
  const groups: string[] = [];
  const tokens: { literal?: string; code?: string }[] = [];
  let before = ''; // the literal just emitted, '' after a code
  for (let i = 0; i < source.length; i += 1) {
    const c = source.charAt(i);
    if (c !== '%') {
      pattern += escapeRegExp(c);
      tokens.push({ literal: c });
      before = c;
      continue;
    }
    const code = source[i + 1];
    i += 1;
    if (code === '%') {
      pattern += '%';
      tokens.push({ literal: '%' });
      before = '%';
      continue;
    }
    const group = code === 'j' ? jobIdPattern(before, literalAt(source, i + 1)) : code === undefined ? undefined : CODE_PATTERNS[code];
    if (code === undefined || group === undefined) throw new Error(`unknown jobid_name code "%${code ?? ''}" in "${source}" (known: %e %g %h %H %j %p %u)`);
    pattern += group;
    groups.push(code);
    tokens.push({ code });
    before = '';
  }
  if (groups.length === 0) throw new Error(`format "${source}" has no % code`);
  return { source, pattern: new RegExp(`${pattern}$`, 's'), groups, bytes: compileBytes(tokens) };
}

/** Parses `--collector.lustre_jobstats.jobid-format`: formats separated by commas, tried in order. */
export function compileJobIdFormats(list: string): JobIdFormats {
  const sources = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (sources.length === 0) throw new Error('no jobid format given (e.g. %j:%u:%H,%e.%u)');
  return { formats: sources.map(compileOne) };
}

const MALFORMED: JobIdentity = { quality: 'malformed' };

export function classifyJobId(id: string, formats: JobIdFormats): JobIdentity {
  if (id.length === 0 || id.length > MAX_ID_LENGTH || hasControlChars(id)) return MALFORMED;
  for (const format of formats.formats) {
    const match = format.pattern.exec(id);
    if (!match) continue;
    let jobid: string | undefined;
    let uid: number | undefined;
    let process: string | undefined;
    let hasJob = false;
    // Indexed, and the identity built without spreads: this runs once for every new entry (20,000 in
    // a first scrape), and each iterator or spread was an object to collect.
    for (let i = 0; i < format.groups.length; i += 1) {
      const code = format.groups[i];
      const value = match[i + 1] ?? '';
      if (code === 'j') {
        hasJob = true;
        // Flux's `ƒ` spelling (FLUX_JOB_ID under a UTF-8 locale) becomes the ASCII one every other
        // jobio source labels the job with, so jobstats join the profiler, cgroup and GPU series.
        if (value !== '') jobid = value.startsWith('ƒ') ? (canonicalFluxJobId(value) ?? value) : value;
      } else if (code === 'u') {
        uid = Number(value);
      } else if (code === 'e') {
        process = value;
      }
    }
    if (uid !== undefined && !Number.isSafeInteger(uid)) continue;
    return identityOf(hasJob, jobid, uid, process);
  }
  return MALFORMED;
}

/** The identity a matched format gives: every field set only when present, so that identities compare alike. */
function identityOf(hasJob: boolean, jobid: string | undefined, uid: number | undefined, process: string | undefined): JobIdentity {
  if (hasJob && jobid !== undefined) return uid !== undefined ? { quality: 'correct', jobid, uid } : { quality: 'correct', jobid };
  const quality: JobIdQuality = hasJob ? 'missing_jobid' : 'correct';
  if (uid === undefined) return process === undefined ? { quality } : { quality, process };
  return process === undefined ? { quality, uid } : { quality, uid, process };
}

/** Each code's [start, end) of the last byte match (reused: one array, not one a match). */
let spans = new Int32Array(16);

/** The id's text between two offsets (printable ASCII: a byte a character). */
function asciiText(bytes: Uint8Array, start: number, end: number): string {
  return bytes instanceof Buffer ? bytes.toString('latin1', start, end) : String.fromCharCode(...bytes.subarray(start, end));
}

/**
 * classifyJobId(decodeJobId(raw)) of the id whose bytes (as printed in job_stats) are bytes[start, end),
 * found on the bytes (jobid-bytes.ts): no decoded string, no match array, only the values kept made
 * as text. undefined when the bytes cannot tell it (an escape in a quoted id, bytes outside printable
 * ASCII, a format reached that has no byte program): then classify the decoded string.
 */
export function classifyJobIdBytes(bytes: Uint8Array, start: number, end: number, formats: JobIdFormats): JobIdentity | undefined {
  // Quoted (2.15.2+): the id is between the quotes, as decodeJobId() reads it, unless it holds an escape.
  const quoted = end - start >= 2 && bytes[start] === 34 /* " */ && bytes[end - 1] === 34;
  const from = quoted ? start + 1 : start;
  const to = quoted ? end - 1 : end;
  if (to === from) return MALFORMED;
  if (to - from > MAX_ID_LENGTH || !printableAscii(bytes, from, to, quoted)) return undefined;
  for (const format of formats.formats) {
    const program = format.bytes;
    if (program === undefined) return undefined;
    if (spans.length < program.codes * 2) spans = new Int32Array(program.codes * 2);
    if (!matchBytes(program, bytes, from, to, spans)) continue;
    let jobid: string | undefined;
    let uid: number | undefined;
    let process: string | undefined;
    let hasJob = false;
    // As classifyJobId() reads the groups, code by code.
    for (let i = 0; i < format.groups.length; i += 1) {
      const code = format.groups[i];
      const from = spans[2 * i] as number;
      const to = spans[2 * i + 1] as number;
      if (code === 'j') {
        hasJob = true;
        // An ASCII id never starts with Flux's `ƒ`.
        if (to > from) jobid = asciiText(bytes, from, to);
      } else if (code === 'u') {
        uid = digitsValue(bytes, from, to);
      } else if (code === 'e') {
        process = asciiText(bytes, from, to);
      }
    }
    if (uid !== undefined && !Number.isSafeInteger(uid)) continue;
    return identityOf(hasJob, jobid, uid, process);
  }
  return MALFORMED;
}
