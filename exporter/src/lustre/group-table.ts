// One scrape's increments by series key as the series book reads them (series-book.ts settle()): groups
// by number, each with its key, labels, activity and increments.
//
// Why numbers, not a Map of group objects: the job_stats collector's groups are its credits (credits.ts),
// and an object per job and scrape plus a Map by key were ~20 MB of a changing 100,000-job scrape's
// transient heap, alive until the scrape was settled. Callers with few groups (export stats, client stats)
// hand a Map, read through mapGroups().
import type { U64 } from '../util/u64.js';
import type { DeltaRows } from './delta-rows.js';
import type { SeriesGroup, SeriesLabels } from './series-book.js';

export interface GroupTable {
  /** Calls `visit` with each group's number and key, in the order of their first increment. */
  forEach(visit: (group: number, key: string) => void): void;
  /** Whether a group has this key. */
  has(key: string): boolean;
  keyOf(group: number): string;
  /** undefined: the key tells them (series-book.ts labelsOfKey()). */
  labelsOf(group: number): SeriesLabels | undefined;
  /** Requests in this scrape: how "active" the job is when slots are handed out. */
  activityOf(group: number): number;
  /** Increments by field number, zero or undefined where none; valid until the next deltasOf(). */
  deltasOf(group: number): ArrayLike<U64 | undefined>;
  /** The most fields a deltasOf() has. */
  readonly width: number;
  /**
   * The groups' increments as rows by group number, handed over for good (the table's increments are
   * gone from then on): offered by a table whose groups are rows already (credits.ts), so that jobs that
   * begin to wait keep those rows instead of copies (100,000 jobs: two sets of ~11 MB of rows at once).
   */
  takeRows?(): DeltaRows;
}

/** The groups of a Map by key, numbered in its order. */
export function mapGroups(groups: ReadonlyMap<string, SeriesGroup>): GroupTable {
  const keys = [...groups.keys()];
  const list = [...groups.values()];
  const at = (g: number): SeriesGroup => list[g] as SeriesGroup;
  let width = 0;
  for (const g of list) width = Math.max(width, g.deltas.length);
  return {
    forEach: (visit) => {
      for (let g = 0; g < keys.length; g += 1) visit(g, keys[g] as string);
    },
    has: (key) => groups.has(key),
    keyOf: (g) => at(g).key,
    labelsOf: (g) => at(g).labels,
    activityOf: (g) => at(g).activity,
    deltasOf: (g) => at(g).deltas,
    width,
  };
}
