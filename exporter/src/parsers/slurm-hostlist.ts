// Slurm host lists (`node[01-03,07],gpu[1-2]-ib,login1`) expanded into host names, as squeue's %N
// prints them. Bounded: a malformed or absurd range yields the text as one name instead of exploding.
const MAX_HOSTS = 100_000;

/** Splits at commas outside brackets. */
function topLevel(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i += 1) {
    const ch = list[i];
    if (ch === '[') depth += 1;
    else if (ch === ']') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      parts.push(list.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(list.slice(start));
  return parts.filter((p) => p !== '');
}

/** The values of one bracket body `01-03,07`, zero padding kept; undefined when malformed. */
function rangeValues(body: string): string[] | undefined {
  const values: string[] = [];
  for (const item of body.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (!m?.[1]) return undefined;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi < lo || hi - lo > MAX_HOSTS) return undefined;
    const width = m[1].length;
    for (let v = lo; v <= hi; v += 1) values.push(String(v).padStart(width, '0'));
  }
  return values;
}

function expandOne(pattern: string): string[] {
  const open = pattern.indexOf('[');
  if (open < 0) return [pattern];
  const close = pattern.indexOf(']', open);
  const values = close < 0 ? undefined : rangeValues(pattern.slice(open + 1, close));
  if (!values) return [pattern];
  const head = pattern.slice(0, open);
  const tails = expandOne(pattern.slice(close + 1));
  const out: string[] = [];
  for (const v of values) for (const t of tails) if (out.length < MAX_HOSTS) out.push(`${head}${v}${t}`);
  return out;
}

export function expandHostList(list: string): string[] {
  return topLevel(list.trim()).flatMap(expandOne);
}
