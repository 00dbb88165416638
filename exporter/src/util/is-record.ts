// The one test for "a plain key/value object" that parsed YAML or JSON answers are narrowed with
// before their fields are read: not null, not an array.
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
