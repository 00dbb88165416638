// Template-variable interpolation that never lets a value become PromQL syntax.
import type { QueryFilters } from '../types';
import { escapeLabelValue, escapeRegexLiteral } from './escape';
import type { LabelFilter } from './matchers';

/** The part of Grafana's TemplateSrv.replace we use: a custom formatter gets each variable's value(s). */
export type ReplaceFn = (target: string, format: (value: string | string[]) => string) => string;

/** Marks where a variable's values go in the expanded text (a prefix that the text itself does not contain). */
function placeholderPrefix(raw: string): string {
  let prefix = '\u0000jobio';
  while (raw.includes(prefix)) {
    prefix += '\u0000';
  }
  return prefix;
}

/**
 * Expands variables in one filter field into literal values. A multi-value or "All" variable gives
 * several values; literal text is one value, and literal text around a variable is joined to each of
 * its values. Values are never split again: a value may hold any character (a job id with the unit
 * separator or a newline stays one value). Empty values mean "no filter".
 */
export function resolveValues(raw: string | undefined, replace: ReplaceFn): string[] {
  if (raw === undefined || raw.trim() === '') {
    return [];
  }
  const prefix = placeholderPrefix(raw);
  const captured: string[][] = [];
  const expanded = replace(raw, (value) => {
    captured.push(Array.isArray(value) ? value : [value]);
    return `${prefix}${captured.length - 1};`;
  });
  // Literal text and placeholders alternate: [text, index, text, index, …, text].
  const parts = expanded.split(new RegExp(`${prefix}(\\d+);`));
  let values = [''];
  parts.forEach((part, i) => {
    if (i % 2 === 0) {
      values = values.map((v) => v + part);
    } else {
      const chosen = captured[Number(part)] ?? [];
      values = values.flatMap((v) => chosen.map((c) => v + c));
    }
  });
  return values.filter((v) => v !== '');
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
