// Which exposition format a scraper gets, decided from its Accept header as client_golang's exporters
// decide it: the media ranges in order of preference (highest q first; equal q in the order written),
// and the first that names a format the writer writes wins. OpenMetrics is
// `application/openmetrics-text` of version 1.0.0, 0.0.1 or none (Prometheus asks for it first);
// the text format is `text/plain` of version 0.0.4 or none. No header, or nothing we write, gets the
// text format, which every scraper reads.
import type { ExpositionFormat } from '../scrape/exposition-writer.js';

interface MediaRange {
  readonly type: string;
  readonly params: ReadonlyMap<string, string>;
  readonly q: number;
}

const OPENMETRICS_VERSIONS = new Set(['', '1.0.0', '0.0.1']);
const TEXT_VERSIONS = new Set(['', '0.0.4']);

function parseRange(text: string): MediaRange {
  const [type = '', ...rest] = text.split(';').map((p) => p.trim());
  const params = new Map<string, string>();
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params.set(
      p.slice(0, eq).trim().toLowerCase(),
      p
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  // A q that is not a number counts as not acceptable, as a q of 0 does (HTTP: "not acceptable").
  const q = params.has('q') ? Number(params.get('q')) : 1;
  return { type: type.toLowerCase(), params, q: Number.isFinite(q) ? q : 0 };
}

/** The format to answer an `Accept` header with. */
export function negotiateFormat(accept: string | undefined): ExpositionFormat {
  if (accept === undefined) return 'text';
  const ranges = accept
    .split(',')
    .map(parseRange)
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q); // stable: equal preferences keep the order written
  for (const range of ranges) {
    const version = range.params.get('version') ?? '';
    if (range.type === 'application/openmetrics-text' && OPENMETRICS_VERSIONS.has(version)) return 'openmetrics';
    if (range.type === 'text/plain' && TEXT_VERSIONS.has(version)) return 'text';
  }
  return 'text';
}
