// Free-text label values (job names, paths) from a scheduler: each user chooses them, so their
// length is bounded (a 1 MB job name must not cost 1 MB per scrape) and control characters, which
// would make the exposition unreadable to people and act on terminals, are replaced.
import { withoutControlChars } from './control-chars.js';

/** The value cut to `max` characters (code points), control characters as `?`; `changed` when either applied. */
export function boundLabel(value: string, max: number): { value: string; changed: boolean } {
  const clean = withoutControlChars(value);
  // Cut at a code point boundary: count code points, never split a surrogate pair.
  let end = 0;
  for (let n = 0; n < max && end < clean.length; n += 1) end += (clean.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  const cut = clean.slice(0, end);
  return { value: cut, changed: cut !== value };
}
