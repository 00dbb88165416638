// What `jobio top` leaves out or folds before sorting: rows that did nothing in the window (increase()
// answers 0 for every series it has), system accounts' entries (user="_system": daemons, backups,
// editors on a login node) folded into one row, and the rows an interactive filter hides.
import { SYSTEM } from '../labels/reserved.js';
import type { Increment } from './increments.js';
import { emptyRow, type TopRow } from './table.js';

/** Rows that moved bytes or made requests in the window. */
export const dropIdle = (rows: readonly TopRow[]): TopRow[] => rows.filter((r) => r.wr > 0 || r.rd > 0 || r.reqs > 0);

/** The job text of the row that holds `n` system entries: one word, so the line mode stays columns. */
export const systemRowName = (n: number): string => `${SYSTEM}(${n})`;

/** Rows whose only owner is _system, summed into one row (left alone when there is only one). */
export function foldSystem(rows: readonly TopRow[]): TopRow[] {
  const system = rows.filter((r) => r.owners.size === 1 && r.owners.has(SYSTEM));
  if (system.length < 2) return [...rows];
  const folded = emptyRow(systemRowName(system.length));
  folded.entries = 0;
  for (const r of system) {
    folded.wr += r.wr;
    folded.rd += r.rd;
    folded.reqs += r.reqs;
    folded.meta += r.meta;
    folded.entries += r.entries;
    for (const t of r.targets) folded.targets.add(t);
    for (const h of r.hosts) folded.hosts.add(h);
  }
  folded.owners.add(SYSTEM);
  return [...rows.filter((r) => !system.includes(r)), folded];
}

/** Substrings the rows must contain (interactive keys u, j, t); empty or undefined: no filter. */
export interface RowFilters {
  readonly user?: string;
  readonly job?: string;
  readonly target?: string;
}

export const hasFilters = (f: RowFilters): boolean => Boolean(f.user || f.job || f.target);

/** Increments on the targets the filter names (the rest of a job's load is left out, not its row kept whole). */
export const filterTargets = (increments: readonly Increment[], f: RowFilters): readonly Increment[] =>
  f.target ? increments.filter((i) => (i.labels.target ?? '').includes(f.target ?? '')) : increments;

export const filterRows = (rows: readonly TopRow[], f: RowFilters): TopRow[] =>
  rows.filter((r) => (!f.job || r.job.includes(f.job)) && (!f.user || [...r.owners].some((o) => o.includes(f.user ?? ''))));
