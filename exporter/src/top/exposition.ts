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

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

/** Parses `{a="x",b="y\"z"}` starting at `text[0] === '{'`; returns the labels and the rest, or undefined. */
function parseLabels(text: string): { labels: Record<string, string>; rest: string } | undefined {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    while (text[i] === ' ' || text[i] === ',') i += 1;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const name = LABEL_NAME.exec(text.slice(i))?.[0];
    if (!name) return undefined;
    i += name.length;
    while (text[i] === ' ') i += 1;
    if (text[i] !== '=' || text[i + 1] !== '"') return undefined;
    i += 2;
    let value = '';
    for (;;) {
      const ch = text[i];
      if (ch === undefined) return undefined;
      if (ch === '"') break;
      if (ch === '\\') {
        const next = text[i + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        i += 2;
        continue;
      }
      value += ch;
      i += 1;
    }
    labels[name] = value;
    i += 1;
  }
}

function parseValue(text: string): number | undefined {
  const token = text.trim().split(/\s+/)[0] ?? '';
  if (token === '+Inf') return Number.POSITIVE_INFINITY;
  if (token === '-Inf') return Number.NEGATIVE_INFINITY;
  if (token === 'NaN') return Number.NaN;
  const v = Number(token);
  return token === '' || Number.isNaN(v) ? undefined : v;
}

/** The samples whose metric name `wanted` accepts (all when omitted). */
export function parseExposition(text: string, wanted?: (name: string) => boolean): ParsedExposition {
  const samples: Sample[] = [];
  let badLines = 0;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (!name) {
      badLines += 1;
      continue;
    }
    if (wanted && !wanted(name)) continue;
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) {
      const parsed = parseLabels(rest);
      if (!parsed) {
        badLines += 1;
        continue;
      }
      labels = parsed.labels;
      rest = parsed.rest;
    }
    const value = parseValue(rest);
    if (value === undefined) badLines += 1;
    else samples.push({ name, labels, value });
  }
  return { samples, badLines };
}
