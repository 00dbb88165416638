// The refresh loop of `jobio top`: a feed of snapshots (feed.ts) shown either full screen with keys,
// when stdout and stdin are terminals (interactive.ts), or as successive plain tables otherwise, and
// with --once or --batch (the line mode below: what scripts and pipes get). Ends at SIGINT (or once).
import { createFeed, type TopFeed } from './feed.js';
import type { RowFilters } from './fold.js';
import { runScreen } from './interactive.js';
import { TopSourceError } from './prometheus-source.js';
import type { TopExtras, TopOutput, TopSettings } from './settings.js';
import { Stopper } from './stopper.js';
import { DEFAULT_COLUMNS, formatTable, needsJobInfo, SORT_COLUMN } from './table.js';
import { windowText } from './units.js';
import { shownRows, titleText } from './view.js';
import { withoutControlChars } from '../labels/control-chars.js';

export async function runTop(settings: TopSettings, out: TopOutput, extras: TopExtras = {}): Promise<number> {
  const stopper = new Stopper();
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const interactive = out.isTTY === true && !settings.once && settings.batch !== true && (extras.input ?? process.stdin).isTTY === true;
  // SIGTERM and SIGHUP too on a terminal: the screen must be given back before the process ends.
  const handled = interactive ? signals : (['SIGINT'] as const);
  for (const sig of handled) process.on(sig, stopper.stop);
  settings.stop?.addEventListener('abort', stopper.stop);
  if (settings.stop?.aborted) stopper.stop();
  const columns = settings.columns ?? DEFAULT_COLUMNS[settings.mode];
  const feed = createFeed({ ...settings, withJobInfo: needsJobInfo(columns) });
  try {
    if (interactive) return await runScreen({ settings, columns, feed, out, extras, stopper });
    return await runLines(settings, columns, feed, out, extras, stopper);
  } catch (err) {
    if (err instanceof TopSourceError) {
      process.stderr.write(`jobio top: ${withoutControlChars(err.message)}\n`);
      return 1;
    }
    throw err;
  } finally {
    for (const sig of handled) process.off(sig, stopper.stop);
    settings.stop?.removeEventListener('abort', stopper.stop);
  }
}

/** The line mode: a title and a table per refresh (one with --once), warnings under it. */
async function runLines(settings: TopSettings, columns: readonly string[], feed: TopFeed, out: TopOutput, extras: TopExtras, stopper: Stopper): Promise<number> {
  const samplingMs = await feed.start();
  if (stopper.isStopped()) return 0;
  if (samplingMs > 0) {
    // Someone is watching: say why nothing shows yet (scripts reading a pipe do not need it).
    if (out.isTTY || process.stderr.isTTY) process.stderr.write(`jobio top: sampling… the first table covers the next ${windowText(samplingMs)}\n`);
    await stopper.sleep(samplingMs);
    if (stopper.isStopped()) return 0;
  }
  const choices = { fold: settings.foldSystem ?? true, filters: {}, sort: SORT_COLUMN[settings.sort], reversed: false };
  for (;;) {
    const snapshot = await feed.read();
    if (stopper.isStopped()) return 0;
    if (settings.mapper) await settings.mapper.refresh();
    const { rows } = await shownRows(snapshot, settings.mode, settings.mapper, choices);
    const table = formatTable(rows, settings.mode, settings.limit, columns, snapshot.info);
    const warnings = [settings.mapper?.warning, rows.length === 0 ? await feed.emptyHint() : undefined].filter((w): w is string => w !== undefined);
    const below = extras.below ? (await extras.below()).map((l) => `${withoutControlChars(l)}\n`).join('') : '';
    const title = `${titleText(feed, settings.mode, snapshot.at)}\n`;
    if (settings.once) {
      out.write(title + table + below);
      for (const w of warnings) process.stderr.write(`jobio top: ${withoutControlChars(w)}\n`);
      return 0;
    }
    out.write(`\n${title}${table}${warnings.map((w) => `(${withoutControlChars(w)})\n`).join('')}${below}`);
    await stopper.sleep(settings.intervalMs);
    if (stopper.isStopped()) return 0;
  }
}

export type { RowFilters };
