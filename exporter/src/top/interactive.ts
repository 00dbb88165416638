// The full-screen mode of `jobio top` (stdout and stdin are terminals): the alternate screen, keys
// read raw (keys.ts), a frame redrawn at each refresh, key and resize (screen.ts), rates with scaled
// units. The terminal is given back (normal screen, cursor, cooked mode) however the loop ends.
import type { TopFeed, TopSnapshot } from './feed.js';
import { hasFilters } from './fold.js';
import type { JobInfoMap } from './job-info.js';
import { applyKey, KEY_HELP, KEY_HINT, splitKeys, type ScreenState } from './keys.js';
import { TopSourceError } from './prometheus-source.js';
import { ENTER_SCREEN, frameText, layoutScreen, LEAVE_SCREEN } from './screen.js';
import type { Stopper } from './stopper.js';
import { SORT_COLUMN, tableCells } from './table.js';
import type { TerminalOut, TopExtras, TopSettings } from './settings.js';
import { windowText } from './units.js';
import { shownRows, titleText } from './view.js';

interface ScreenRun {
  readonly settings: TopSettings;
  readonly columns: readonly string[];
  readonly feed: TopFeed;
  readonly out: TerminalOut;
  readonly extras: TopExtras;
  readonly stopper: Stopper;
}

const FIELD_NAMES = { user: 'user', job: 'job', target: 'target' } as const;

function filterText(state: ScreenState): string {
  return Object.entries(state.filters)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}~${String(v)}`)
    .join(' ');
}

export async function runScreen({ settings, columns, feed, out, extras, stopper }: ScreenRun): Promise<number> {
  const input = extras.input ?? process.stdin;
  let state: ScreenState = { sort: SORT_COLUMN[settings.sort], reversed: false, filters: {}, paused: false, fold: settings.foldSystem ?? true, help: false };
  let snapshot: TopSnapshot | undefined;
  let waiting = 'querying…';
  let failure: string | undefined;
  let warnings: string[] = [];
  let below: string[] = [];

  const draw = async (): Promise<void> => {
    const width = out.columns ?? 80;
    const height = out.rows ?? 24;
    const shown = snapshot ? await shownRows(snapshot, settings.mode, settings.mapper, state) : undefined;
    const table = tableCells(shown?.rows ?? [], columns, snapshot?.info ?? (new Map() as JobInfoMap), (snapshot?.windowMs ?? settings.intervalMs) / 1000);
    const parts = (rowsShown: number): string => {
      if (!shown) return waiting;
      const n = shown.rows.length;
      const noun = settings.mode === 'job' ? (n === 1 ? 'job' : 'jobs') : n === 1 ? 'row' : 'rows';
      const list = [
        rowsShown < n ? `${rowsShown} of ${n} ${noun} shown` : `${n} ${noun}`,
        shown.idle > 0 ? `${shown.idle} idle not shown` : '',
        hasFilters(state.filters) ? `filter ${filterText(state)} (${shown.hidden} hidden)` : '',
        state.paused ? 'PAUSED (p resumes)' : '',
        failure ? `last refresh failed: ${failure}` : '',
        ...warnings,
      ];
      return list.filter((p) => p !== '').join(' · ');
    };
    const footer = state.prompt ? [`filter by ${FIELD_NAMES[state.prompt.field]} (a substring; Enter applies, empty clears, Esc cancels): ${state.prompt.text}_`] : state.help ? KEY_HELP : [KEY_HINT];
    const view = {
      width,
      height,
      above: extras.above ?? [],
      title: titleText(feed, settings.mode, snapshot?.at),
      status: '',
      ...table,
      sortIndex: columns.indexOf(state.sort),
      reversed: state.reversed,
      below,
      footer,
    };
    const first = layoutScreen(view);
    const layout = layoutScreen({ ...view, status: parts(first.rowsShown) });
    if (!stopper.isStopped()) out.write(frameText(layout, width));
  };
  // Frames drawn one after another, never interleaved (a key during a refresh).
  let drawing = Promise.resolve();
  const redraw = (): void => {
    drawing = drawing.then(draw).catch(() => undefined);
  };
  const onData = (chunk: Buffer | string): void => {
    for (const key of splitKeys(chunk.toString())) {
      const wasPaused = state.paused;
      const result = applyKey(state, key, columns);
      state = result.state;
      if (result.quit) return stopper.stop();
      if (wasPaused && !state.paused) stopper.wake(); // resume: refresh now
    }
    redraw();
  };

  out.write(ENTER_SCREEN);
  input.setRawMode?.(true);
  input.on('data', onData);
  input.resume();
  out.on?.('resize', redraw);
  try {
    redraw();
    const samplingMs = await feed.start();
    if (samplingMs > 0) {
      waiting = `sampling… the first table covers the next ${windowText(samplingMs)}`;
      redraw();
      await sleepFully(stopper, samplingMs);
    }
    let first = true;
    while (!stopper.isStopped()) {
      const nextAt = Date.now() + settings.intervalMs;
      if (!state.paused) {
        try {
          snapshot = await feed.read();
          if (settings.mapper) await settings.mapper.refresh();
          failure = undefined;
        } catch (err) {
          // The first table must come, or the command fails as in the line mode; later failures
          // (a Prometheus restart) keep the last table on screen, marked.
          if (first || !(err instanceof TopSourceError)) throw err;
          failure = err.message;
        }
        first = false;
        const empty = snapshot !== undefined && snapshot.increments.length === 0 ? await feed.emptyHint() : undefined;
        warnings = [settings.mapper?.warning, empty].filter((w): w is string => w !== undefined);
        if (extras.below) below = await extras.below();
        redraw();
      }
      // Keys wake the sleep only to resume: sleep on until the next refresh otherwise.
      while (!stopper.isStopped() && Date.now() < nextAt) {
        const before = state.paused;
        await stopper.sleep(nextAt - Date.now());
        if (before && !state.paused) break;
      }
    }
    await drawing;
    return 0;
  } finally {
    out.off?.('resize', redraw);
    input.off('data', onData);
    input.setRawMode?.(false);
    input.pause();
    out.write(LEAVE_SCREEN);
  }
}

async function sleepFully(stopper: Stopper, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!stopper.isStopped() && Date.now() < until) await stopper.sleep(until - Date.now());
}
