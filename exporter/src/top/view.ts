// From one snapshot to the rows and lines `jobio top` shows, whatever the front (lines or screen):
// rows per job (or per client mapped to jobs), idle rows dropped, _system rows folded, filtered,
// sorted; and the title that says what the table covers.
import type { ClientMapper } from './client-map.js';
import type { TopFeed, TopSnapshot } from './feed.js';
import { dropIdle, filterRows, filterTargets, foldSystem, type RowFilters } from './fold.js';
import type { TopMode } from './increments.js';
import { clientRows, jobRows, sortRows, type TopRow } from './table.js';
import { windowText } from './units.js';
import { withoutControlChars } from '../labels/control-chars.js';

export interface RowChoices {
  readonly fold: boolean;
  readonly filters: RowFilters;
  readonly sort: string;
  readonly reversed: boolean;
}

export interface ShownRows {
  readonly rows: TopRow[];
  /** Rows with no load in the window, left out. */
  readonly idle: number;
  /** Rows the filters hid. */
  readonly hidden: number;
}

export async function shownRows(snapshot: TopSnapshot, mode: TopMode, mapper: ClientMapper | undefined, c: RowChoices): Promise<ShownRows> {
  const increments = filterTargets(snapshot.increments, c.filters);
  const all = mapper ? await clientRows(increments, mapper) : jobRows(increments);
  const busy = dropIdle(all);
  const folded = c.fold ? foldSystem(busy) : busy;
  const rows = filterRows(folded, c.filters);
  return { rows: sortRows(rows, c.sort, snapshot.info, c.reversed), idle: all.length - busy.length, hidden: folded.length - rows.length };
}

/** `jobio top — by job, 10s interval, SOURCE — TIME`, or `… 2m window (widened …) …`. */
export function titleText(feed: TopFeed, mode: TopMode, at: Date | undefined): string {
  const w = feed.window;
  const span = w.note ? `${windowText(w.ms)} window (${w.note})` : `${windowText(w.ms)} interval`;
  return `jobio top — by ${mode}, ${span}, ${withoutControlChars(feed.shown)}${at ? ` — ${at.toISOString()}` : ''}`;
}
