// Free-text label values (job names, paths) from a scheduler: each user chooses them, so their
// length is bounded (a 1 MB job name must not cost 1 MB per scrape) and control characters, which
// would make the exposition unreadable to people, are replaced.

/** The value cut to `max` characters (code points), control characters as `?`; `changed` when either applied. */
export function boundLabel(value: string, max: number): { value: string; changed: boolean } {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u001f\u007f]/g, '?');
  const chars = [...clean];
  const cut = chars.length > max ? chars.slice(0, max).join('') : clean;
  return { value: cut, changed: cut !== value };
}
