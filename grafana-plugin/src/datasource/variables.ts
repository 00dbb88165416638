// Variable queries: `jobs`, `users`, `targets`, `mounts`, `operations`, optionally narrowed with
// label filters, e.g. `jobs(user=$user, target=scratch-OST0001)`.
import type { JobioVariableQuery, QueryFilters } from './types';

const KINDS: ReadonlyArray<JobioVariableQuery['kind']> = ['jobs', 'users', 'targets', 'mounts', 'operations'];
const FILTER_KEYS: ReadonlyArray<keyof QueryFilters> = ['jobid', 'user', 'target', 'mount', 'operation'];

/** Parses the text form of a variable query; throws with a usage hint on anything else. */
export function parseVariableQuery(text: string): JobioVariableQuery {
  const m = /^\s*([a-z]+)\s*(?:\((.*)\))?\s*$/s.exec(text);
  const kind = m?.[1] as JobioVariableQuery['kind'] | undefined;
  if (!m || !kind || !KINDS.includes(kind)) {
    throw new Error(`variable query must be one of ${KINDS.join(', ')}, optionally with filters: jobs(user=$user)`);
  }
  const filters: QueryFilters = {};
  for (const part of (m[2] ?? '').split(',')) {
    if (!part.trim()) {
      continue;
    }
    const eq = part.indexOf('=');
    const key = part.slice(0, Math.max(0, eq)).trim() as keyof QueryFilters;
    if (eq < 0 || !FILTER_KEYS.includes(key)) {
      throw new Error(`unknown filter ${JSON.stringify(part.trim())}; use ${FILTER_KEYS.join(', ')}`);
    }
    filters[key] = part.slice(eq + 1).trim();
  }
  return { kind, filters };
}
