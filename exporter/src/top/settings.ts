// What `jobio top`'s loop is given: its settings, the extra lines a caller shows, and the terminal it
// draws on. Both the line mode (top-loop.ts) and the full-screen mode (interactive.ts) read them.
import type { ClientMapper } from './client-map.js';
import type { TopMode } from './increments.js';
import type { SortKey } from './table.js';

export interface TerminalOut {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
  readonly rows?: number;
  on?(event: 'resize', listener: () => void): unknown;
  off?(event: 'resize', listener: () => void): unknown;
}

export interface TerminalIn {
  readonly isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface TopSettings {
  readonly mode: TopMode;
  readonly prometheus?: string;
  readonly exporters: readonly string[];
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly once: boolean;
  /** Plain successive tables even on a terminal (top -b). */
  readonly batch?: boolean;
  readonly sort: SortKey;
  readonly limit: number;
  readonly time?: number;
  readonly filters: Readonly<Record<string, string | undefined>>;
  readonly mapper?: ClientMapper;
  /** Columns to print (default: DEFAULT_COLUMNS of the mode). */
  readonly columns?: readonly string[];
  /** Fold the rows of system accounts (user _system) into one (default true). */
  readonly foldSystem?: boolean;
  /** Stops the loop like SIGINT does (`jobio demo` ends its table this way). */
  readonly stop?: AbortSignal;
}

/** Lines a caller shows with the table (`jobio demo`): fixed ones above, refreshed ones below. */
export interface TopExtras {
  readonly above?: readonly string[];
  readonly below?: () => Promise<string[]>;
  /** The terminal's input for the keys (default process.stdin). */
  readonly input?: TerminalIn;
}

export type TopOutput = TerminalOut;
