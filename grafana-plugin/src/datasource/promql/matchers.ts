import { assertLabelName, escapeLabelValue, escapeRegexLiteral } from './escape';

/** One label filter after template interpolation: every value is literal, several values mean "any of". */
export interface LabelFilter {
  label: string;
  values: string[];
  negate?: boolean;
}

/**
 * Renders one matcher: a single value gives `label="v"` (or `!=`), several give
 * `label=~"v1|v2"` (or `!~`) with every value regex-escaped. An empty list renders nothing.
 */
export function renderMatcher(filter: LabelFilter): string | undefined {
  const name = assertLabelName(filter.label);
  const values = [...new Set(filter.values)];
  if (values.length === 0) {
    return undefined;
  }
  if (values.length === 1) {
    return `${name}${filter.negate ? '!=' : '='}"${escapeLabelValue(values[0] ?? '')}"`;
  }
  const pattern = values.map(escapeRegexLiteral).join('|');
  return `${name}${filter.negate ? '!~' : '=~'}"${escapeLabelValue(pattern)}"`;
}

/** Renders a full selector body (without braces) from filters plus extra pre-rendered matchers. */
export function renderMatchers(filters: LabelFilter[], extra: string[] = []): string {
  const parts = [...extra];
  for (const f of filters) {
    const m = renderMatcher(f);
    if (m !== undefined) {
      parts.push(m);
    }
  }
  return parts.join(', ');
}

/** `metric{...}` with the given filters; `metric` itself must be a plain metric name. */
export function selector(metric: string, filters: LabelFilter[], extra: string[] = []): string {
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(metric)) {
    throw new Error(`invalid metric name: ${JSON.stringify(metric)}`);
  }
  const body = renderMatchers(filters, extra);
  return body ? `${metric}{${body}}` : metric;
}
