// Windows of the exporter's own clock, so that what a collector decides per window is the same for
// every scraper (docs/architecture.md "The same answer whoever scrapes"): windows end at the multiples
// of `windowMs` since the epoch, and the first read at or after such an end closes the window. The
// reads between two closing reads (more scrapers, or a scrape interval below the window) only add to
// the open window. Used by the rate density and max-jobs slots of lustre_jobstats (rate-density.ts,
// series-book.ts) and by the node-job attribution of lustre_client (client-book.ts).
import type { SlotTurn } from './series-book.js';

/** The window when none is configured: the shipped scrape interval, one window a scrape. */
export const DEFAULT_WINDOW_MS = 30_000;

export class WindowClock {
  /** The read that opened the window (undefined: none yet, the next read opens one). */
  private opened: number | undefined;

  constructor(readonly windowMs: number) {}

  /** Opens a window at `now` (the read that closed the previous one, or a first read). */
  open(now: number): void {
    this.opened = now;
  }

  /** Whether a window is open. */
  get isOpen(): boolean {
    return this.opened !== undefined;
  }

  /** When the open window was opened (NaN: none is). */
  get openedAt(): number {
    return this.opened ?? Number.NaN;
  }

  /** Whether a read at `now` closes the open window: a window end lies between its opening read and `now`. */
  closes(now: number): boolean {
    if (this.opened === undefined) return false;
    return Math.floor(now / this.windowMs) > Math.floor(this.opened / this.windowMs) && now > this.opened;
  }

  /** The last window end at or before `now`: the end a read closing the window at `now` closes it at. */
  endBefore(now: number): number {
    return Math.floor(now / this.windowMs) * this.windowMs;
  }

  /**
   * Where a read at `now` (before the window moves) falls on the clock: whether it closes the open
   * window (or opens the first: nothing is open), and the window end its increments count at: the end
   * just passed for a closing read, the next end for the others. So the reads of one window count at
   * its end, however many scrapers split it.
   */
  turnAt(now: number): SlotTurn {
    const w = this.windowMs;
    const passed = this.endBefore(now);
    if (this.opened === undefined) return { decide: true, at: passed };
    const decide = this.closes(now);
    return { decide, at: decide ? passed : (Math.floor(this.opened / w) + 1) * w };
  }
}
