// The full-screen frame of `jobio top`, as plain lines first (tested as text), then with the terminal
// escapes: every line cut to the terminal's width, and as many table rows as fit between the fixed
// lines (title, status, header, key hint) and the blocks a caller adds above and below (`jobio demo`).
// When the screen is too short, the blocks give way first: below, then above.
import { alignedLines } from './table.js';
import { withoutControlChars } from '../labels/control-chars.js';

export interface ScreenView {
  readonly width: number;
  readonly height: number;
  readonly above: readonly string[];
  readonly title: string;
  readonly status: string;
  readonly header: readonly string[];
  readonly cells: readonly (readonly string[])[];
  readonly numeric: readonly boolean[];
  /** Index of the sorted column, and whether its order is the reverse of its natural one. */
  readonly sortIndex: number;
  readonly reversed: boolean;
  readonly below: readonly string[];
  readonly footer: readonly string[];
}

export interface ScreenLayout {
  readonly lines: string[];
  /** Lines shown in reverse video (title and table header). */
  readonly inverse: ReadonlySet<number>;
  /** Table rows shown, of all rows. */
  readonly rowsShown: number;
}

/** `text` cut to `width` characters, with … where it was cut. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}

/** Least table rows kept before the blocks above and below give way. */
const MIN_ROWS = 3;

export function layoutScreen(v: ScreenView): ScreenLayout {
  const height = Math.max(1, v.height);
  const fixed = 3 + v.footer.length; // title, status, header, footer
  const want = Math.min(v.cells.length, MIN_ROWS);
  let above = v.above.length;
  let below = v.below.length;
  while (height - fixed - above - below < want && below > 0) below -= 1;
  while (height - fixed - above - below < want && above > 0) above -= 1;
  const rowsShown = Math.max(0, Math.min(v.cells.length, height - fixed - above - below));
  const arrow = (i: number): string => (i !== v.sortIndex ? '' : (v.numeric[i] ?? false) !== v.reversed ? '▼' : '▲');
  const [header = '', ...rows] = alignedLines(
    v.header.map((h, i) => h + arrow(i)),
    v.cells.slice(0, rowsShown),
    v.numeric,
  );
  const lines = [...v.above.slice(0, above), v.title, v.status, header, ...rows];
  const headerAt = above + 2;
  const inverse = new Set([above, headerAt]);
  // The blocks below sit under the rows; the key hint on the last line(s) of the screen.
  lines.push(...v.below.slice(0, below));
  while (lines.length < height - v.footer.length) lines.push('');
  lines.push(...v.footer);
  // Warnings, failures and a caller's lines may quote what a source served: no control character of theirs reaches the terminal.
  return { lines: lines.slice(0, height).map((l) => fit(withoutControlChars(l), v.width)), inverse, rowsShown };
}

export const ENTER_SCREEN = '\x1b[?1049h\x1b[?25l';
export const LEAVE_SCREEN = '\x1b[?25h\x1b[?1049l';

/** The escapes that draw a layout over the previous frame (home, each line, clear to its end). */
export function frameText(layout: ScreenLayout, width: number): string {
  const out = layout.lines.map((line, i) => (layout.inverse.has(i) ? `\x1b[7m${line.padEnd(width)}\x1b[27m` : `${line}\x1b[K`));
  return `\x1b[H${out.join('\r\n')}\x1b[J`;
}
