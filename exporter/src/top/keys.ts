// The keys of `jobio top`'s full-screen mode, as a pure state machine (tested without a terminal):
//   q, Ctrl-C   quit                       p, space   pause / resume the refresh
//   < >, ← →    sort by the column left / right of the current one
//   1–9         sort by that column         i          invert the order
//   u j t       filter by user / job / target (a substring; Enter applies, Esc cancels, empty clears)
//   c           clear the filters           f          fold the _system rows / show them apart
//   ?, h        show / hide the key help
import type { RowFilters } from './fold.js';

export type FilterField = keyof RowFilters;

export interface ScreenState {
  /** The column sorted by (a column name). */
  readonly sort: string;
  readonly reversed: boolean;
  readonly filters: RowFilters;
  readonly paused: boolean;
  readonly fold: boolean;
  readonly help: boolean;
  /** A filter being typed. */
  readonly prompt?: { readonly field: FilterField; readonly text: string };
}

export type KeyResult = { readonly state: ScreenState; readonly quit?: boolean };

const FILTER_KEYS: Readonly<Record<string, FilterField>> = { u: 'user', j: 'job', t: 'target' };

const ESC = '\x1b';

/** The length of the escape sequence at `i` (ESC [ params final, or ESC O letter), 1 for a lone ESC. */
function sequenceLength(input: string, i: number): number {
  const next = input[i + 1];
  if (next === 'O' && i + 2 < input.length) return 3;
  if (next !== '[') return 1;
  let j = i + 2;
  while (j < input.length && /[0-9;]/.test(input[j] ?? '')) j += 1;
  return j < input.length ? j - i + 1 : 1;
}

/** Splits terminal input into keys: escape sequences of the arrows whole, every other character alone. */
export function splitKeys(input: string): string[] {
  const keys: string[] = [];
  for (let i = 0; i < input.length;) {
    const length = input[i] === ESC ? sequenceLength(input, i) : 1;
    keys.push(input.slice(i, i + length));
    i += length;
  }
  return keys;
}

function promptKey(state: ScreenState, key: string): KeyResult {
  const prompt = state.prompt;
  if (!prompt) return { state };
  if (key === '\x03') return { state, quit: true };
  if (key === '\x1b') return { state: { ...state, prompt: undefined } };
  if (key === '\r' || key === '\n') {
    const filters = { ...state.filters, [prompt.field]: prompt.text === '' ? undefined : prompt.text };
    return { state: { ...state, filters, prompt: undefined } };
  }
  if (key === '\x7f' || key === '\b') return { state: { ...state, prompt: { ...prompt, text: prompt.text.slice(0, -1) } } };
  // Printable characters only: a filter never carries control characters to the screen.
  if (key.length === 1 && key >= ' ' && prompt.text.length < 64) return { state: { ...state, prompt: { ...prompt, text: prompt.text + key } } };
  return { state };
}

/** The state after one key, over the columns shown (in screen order). */
export function applyKey(state: ScreenState, key: string, columns: readonly string[]): KeyResult {
  if (state.prompt) return promptKey(state, key);
  const at = Math.max(0, columns.indexOf(state.sort));
  const sortBy = (i: number): KeyResult => {
    const name = columns[Math.min(columns.length - 1, Math.max(0, i))];
    return { state: name === undefined ? state : { ...state, sort: name, reversed: name === state.sort ? state.reversed : false } };
  };
  switch (key) {
    case 'q':
    case 'Q':
    case '\x03':
      return { state, quit: true };
    case 'p':
    case ' ':
      return { state: { ...state, paused: !state.paused } };
    case '<':
    case ',':
    case '\x1b[D':
    case '\x1bOD':
      return sortBy(at - 1);
    case '>':
    case '.':
    case '\x1b[C':
    case '\x1bOC':
      return sortBy(at + 1);
    case 'i':
    case 'I':
      return { state: { ...state, reversed: !state.reversed } };
    case 'c':
      return { state: { ...state, filters: {} } };
    case 'f':
      return { state: { ...state, fold: !state.fold } };
    case '?':
    case 'h':
      return { state: { ...state, help: !state.help } };
    default: {
      if (/^[1-9]$/.test(key)) return Number(key) <= columns.length ? sortBy(Number(key) - 1) : { state };
      const field = FILTER_KEYS[key];
      if (field) return { state: { ...state, prompt: { field, text: state.filters[field] ?? '' } } };
      return { state };
    }
  }
}

export const KEY_HELP = [
  'q quit · p pause · </> or ←/→ sort column · 1-9 sort by column N · i invert',
  'u/j/t filter user/job/target (substring; Enter applies, Esc cancels) · c clear filters · f fold _system rows · ? this help',
];
export const KEY_HINT = 'q quit · p pause · </> sort · i invert · u/j/t filter · c clear · f fold · ? help';
