// Template-variable interpolation that never lets a value become PromQL syntax.
import type { QueryFilters } from '../types';
import { escapeLabelValue, escapeRegexLiteral } from './escape';
import type { LabelFilter } from './matchers';

/** The part of Grafana's TemplateSrv.replace we use: a custom formatter gets each variable's value(s). */
export type ReplaceFn = (target: string, format: (value: string | string[]) => string) => string;

const SEP = '\u001f';

/**
 * Expands variables in one filter field into literal values. A multi-value or "All" variable gives
 * several values; literal text is one value. Empty values mean "no filter".
 */
export function resolveValues(raw: string | undefined, replace: ReplaceFn): string[] {
  if (raw === undefined || raw.trim() === '') {
    return [];
  }
  const expanded = replace(raw, (value) => (Array.isArray(value) ? value.join(SEP) : value));
  return expanded.split(SEP).filter((v) => v !== '');
}

const FILTER_LABELS: ReadonlyArray<keyof QueryFilters> = ['jobid', 'user', 'target', 'mount', 'operation'];

/** All editor filters of a query as literal label filters, in a fixed label order. */
export function resolveFilters(filters: QueryFilters | undefined, replace: ReplaceFn, allowed?: ReadonlyArray<keyof QueryFilters>): LabelFilter[] {
  const out: LabelFilter[] = [];
  for (const label of FILTER_LABELS) {
    if (allowed && !allowed.includes(label)) {
      continue;
    }
    const values = resolveValues(filters?.[label], replace);
    if (values.length > 0) {
      out.push({ label, values });
    }
  }
  return out;
}

/**
 * Interpolates a hand-written PromQL expression: a single value is string-escaped (for `="$v"`), several
 * values are regex-escaped and joined with `|` then string-escaped (for `=~"$v"`).
 */
export function interpolateExpr(expr: string, replace: ReplaceFn): string {
  return replace(expr, (value) => (Array.isArray(value) ? escapeLabelValue(value.map(escapeRegexLiteral).join('|')) : escapeLabelValue(value)));
}
