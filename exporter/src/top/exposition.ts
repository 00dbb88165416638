// A small parser of the Prometheus text exposition format (0.0.4), for `jobio top --exporter`: it
// reads the samples of the metric families it is asked for and ignores everything else. Label values
// are unescaped (\\, \", \n). It never throws: lines it cannot read are counted and skipped.
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface ParsedExposition {
  readonly samples: Sample[];
  readonly badLines: number;
}

// A hand-written scanner over the whole text: no per-line copies, regexes or character-by-character
// string building (an exporter's /metrics can be megabytes and `jobio top` reads it every refresh).

const isNameStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58; // a-z A-Z _ :
const isNameChar = (c: number): boolean => isNameStart(c) || (c >= 48 && c <= 57);
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;

/** A label value from `text[from]` up to the closing quote; `end` is the index after that quote, -1 if none. */
function labelValue(text: string, from: number, lineEnd: number): { value: string; end: number } {
  // Fast path: no backslash before the closing quote (search only up to it: a search for a backslash
  // over the rest of a multi-megabyte text for every label would make the parse quadratic).
  let i = from;
  while (i < lineEnd) {
    const c = text.charCodeAt(i);
    if (c === 34) return { value: text.slice(from, i), end: i + 1 };
    if (c === 92) break;
    i += 1;
  }
  // Escapes present: \\, \" and \n (any other escaped character stands for itself).
  const parts: string[] = [];
  let run = from;
  while (i < lineEnd) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      parts.push(text.slice(run, i));
      return { value: parts.join(''), end: i + 1 };
    }
    if (c === 92) {
      parts.push(text.slice(run, i));
      const next = text[i + 1];
      if (next !== undefined && i + 1 < lineEnd) parts.push(next === 'n' ? '\n' : next);
      i += 2;
      run = i;
      continue;
    }
    i += 1;
  }
  return { value: '', end: -1 };
}

/** Parses `{a="x",b="y\"z"}` with `text[i] === '{'`; returns the labels and the index after `}`, or undefined. */
function parseLabels(text: string, i: number, lineEnd: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  i += 1;
  for (;;) {
    while (i < lineEnd && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 44)) i += 1;
    if (i >= lineEnd) return undefined;
    if (text.charCodeAt(i) === 125) return { labels, end: i + 1 };
    const nameStart = i;
    if (!isNameStart(text.charCodeAt(i)) || text.charCodeAt(i) === 58) return undefined;
    while (i < lineEnd && isNameChar(text.charCodeAt(i)) && text.charCodeAt(i) !== 58) i += 1;
    const name = text.slice(nameStart, i);
    while (i < lineEnd && text.charCodeAt(i) === 32) i += 1;
    if (text.charCodeAt(i) !== 61 || text.charCodeAt(i + 1) !== 34 || i + 1 >= lineEnd) return undefined;
    const { value, end } = labelValue(text, i + 2, lineEnd);
    if (end < 0) return undefined;
    labels[name] = value;
    i = end;
  }
}

function parseValue(text: string, i: number, lineEnd: number): number | undefined {
  while (i < lineEnd && isSpace(text.charCodeAt(i))) i += 1;
  let end = i;
  while (end < lineEnd && !isSpace(text.charCodeAt(end))) end += 1;
  if (end === i) return undefined;
  const token = text.slice(i, end);
  if (token === '+Inf') return Number.POSITIVE_INFINITY;
  if (token === '-Inf') return Number.NEGATIVE_INFINITY;
  if (token === 'NaN') return Number.NaN;
  const v = Number(token);
  return Number.isNaN(v) ? undefined : v;
}

/** The samples whose metric name `wanted` accepts (all when omitted). */
export function parseExposition(text: string, wanted?: (name: string) => boolean): ParsedExposition {
  const samples: Sample[] = [];
  let badLines = 0;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const next = lineEnd + 1;
    let i = lineStart;
    while (i < lineEnd && isSpace(text.charCodeAt(i))) i += 1;
    let end = lineEnd;
    while (end > i && isSpace(text.charCodeAt(end - 1))) end -= 1;
    lineStart = next;
    if (i === end || text.charCodeAt(i) === 35) continue; // empty or # comment
    if (!isNameStart(text.charCodeAt(i))) {
      badLines += 1;
      continue;
    }
    const nameStart = i;
    while (i < end && isNameChar(text.charCodeAt(i))) i += 1;
    const name = text.slice(nameStart, i);
    if (wanted && !wanted(name)) continue;
    let labels: Record<string, string> = {};
    if (text.charCodeAt(i) === 123 && i < end) {
      const parsed = parseLabels(text, i, end);
      if (!parsed) {
        badLines += 1;
        continue;
      }
      labels = parsed.labels;
      i = parsed.end;
    }
    const value = parseValue(text, i, end);
    if (value === undefined) badLines += 1;
    else samples.push({ name, labels, value });
  }
  return { samples, badLines };
}
