// Escaping of label values interpolated into PromQL. Every value that reaches a query goes through here.
//
// Inside a double-quoted PromQL string the escapes that matter are backslash, double quote and the
// control characters (a raw newline ends the string). For `=~` matchers the value is first made a
// literal RE2 pattern (every metacharacter backslashed), then string-escaped like any other value.

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const REGEX_META = /[\\.+*?()|[\]{}^$]/g;

/** Escapes a value for use inside `label="..."`. */
export function escapeLabelValue(value: string): string {
  let out = '';
  for (const ch of value) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        break;
      case '"':
        out += '\\"';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/** Turns a literal value into an RE2 pattern that matches exactly that value (before string escaping). */
export function escapeRegexLiteral(value: string): string {
  return value.replace(REGEX_META, (m) => `\\${m}`);
}

/** Throws unless `name` is a valid Prometheus label name, so names can never carry PromQL either. */
export function assertLabelName(name: string): string {
  if (!LABEL_NAME.test(name)) {
    throw new Error(`invalid label name: ${JSON.stringify(name)}`);
  }
  return name;
}
