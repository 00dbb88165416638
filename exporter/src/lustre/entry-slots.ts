// The per-entry state of one target's job_stats entries, by slot number, in slabs rather than one
// object per entry: an entry's last values are a row of 32-bit numbers (a row of 64-bit floats once a
// value passes 2^32 − 1, such as a byte sum past 4 GiB), its start time, the scrape it was last seen
// in, the number of its job class and of its field layout are one element each of a page's typed arrays
// (numbers the caller gives: a pointer by slot was 8 bytes, and more for the collector to trace).
//
// Why: an object, an array of values and the array's elements for each of 100,000 entries cost about
// 260 bytes an entry besides the values themselves, and as many objects for the collector to trace.
// The slabs are pages of PAGE_SLOTS slots, added as entries come: a slab grown whole (doubled, or by a
// quarter) left every smaller copy behind as garbage, 30–60 MB more peak RSS at 100,000 entries. A
// freed slot (the entry left the file) is reused by the next new entry; pages are let go only when the
// target is cleared.
import type { U64 } from '../util/u64.js';

/** Slots a page: 1,024 slots of 28 values are 112 KiB of narrow values. */
const PAGE_SLOTS = 1024;
const PAGE_SHIFT = 10;
const IN_PAGE = PAGE_SLOTS - 1;
const MAX_NARROW = 0xffffffff;

/** The state of PAGE_SLOTS slots: narrow values by row of `stride`, start time, last scrape seen. */
interface Page {
  narrow: Uint32Array;
  readonly startTimes: Float64Array;
  readonly seen: Int32Array;
  /** 0: the slot's values are in `narrow`; r + 1: in row r of the wide rows. */
  readonly wideRow: Int32Array;
  /** Two links of the slot's owner, as slot + 1 (0: none): see linkOf(). */
  readonly links: Int32Array;
  /** The caller's numbers of the slot's job class and field layout. */
  readonly classes: Int32Array;
  readonly layouts: Int32Array;
}

/** Links a slot has: to the slot read after it last time, to the slot taken after it (entry-tracker.ts). */
export const READ_NEXT = 0;
export const TAKEN_NEXT = 1;

export class EntrySlots {
  private readonly pages: Page[] = [];
  /** Rows of 64-bit values, for the slots with a value past MAX_NARROW: PAGE_SLOTS rows a page. */
  private wide: Float64Array[] = [];
  private wideUsed = 0;
  private readonly wideFree: number[] = [];
  /** Values a row: the longest layout stored so far (a row holds the values of its slot's layout). */
  private stride = 0;
  /** Slots handed out so far (free ones included): slots at or above it were never used. */
  private used = 0;
  private readonly free: number[] = [];
  /**
   * The values of the slots with a value beyond 2^53 (a bigint, rare: a byte sum past 8 PiB), kept
   * whole here instead of in the slabs, which hold only exact numbers.
   */
  private readonly big = new Map<number, U64[]>();

  /** A slot for a new entry (its state is set by the caller: layout, values and start, seen). */
  take(cls: number): number {
    const slot = this.free.pop() ?? this.used++;
    if (slot >> PAGE_SHIFT >= this.pages.length) {
      this.pages.push({
        narrow: new Uint32Array(PAGE_SLOTS * this.stride),
        startTimes: new Float64Array(PAGE_SLOTS),
        seen: new Int32Array(PAGE_SLOTS),
        wideRow: new Int32Array(PAGE_SLOTS),
        links: new Int32Array(PAGE_SLOTS * 2),
        classes: new Int32Array(PAGE_SLOTS),
        layouts: new Int32Array(PAGE_SLOTS),
      });
    }
    this.pageOf(slot).classes[slot & IN_PAGE] = cls;
    return slot;
  }

  /** Lets go of a slot: its values are forgotten (its class and layout numbers are the caller's to let go). */
  release(slot: number): void {
    if (this.big.size > 0) this.big.delete(slot);
    this.narrowed(slot);
    this.free.push(slot);
  }

  /** Forgets every slot and lets the pages go. */
  clear(): void {
    this.pages.length = 0;
    this.wide = [];
    this.wideUsed = 0;
    this.wideFree.length = 0;
    this.stride = 0;
    this.used = 0;
    this.free.length = 0;
    this.big.clear();
  }

  /** The number of the slot's job class (given to take()). */
  classOf(slot: number): number {
    return this.pageOf(slot).classes[slot & IN_PAGE] as number;
  }

  /** The number of the slot's field layout (given to store()). */
  layoutOf(slot: number): number {
    return this.pageOf(slot).layouts[slot & IN_PAGE] as number;
  }

  private pageOf(slot: number): Page {
    return this.pages[slot >> PAGE_SHIFT] as Page;
  }

  seenAt(slot: number): number {
    return this.pageOf(slot).seen[slot & IN_PAGE] as number;
  }

  markSeen(slot: number, epoch: number): void {
    this.pageOf(slot).seen[slot & IN_PAGE] = epoch;
  }

  /** Every slot marked seen (free ones too: a slot taken again is marked then). */
  markAllSeen(epoch: number): void {
    for (const page of this.pages) page.seen.fill(epoch);
  }

  /**
   * The slot the slot's `link` points to (-1: none). In pages, not an array of numbers by slot: 4 bytes
   * a link instead of 8, and no array grown by doubling.
   */
  linkOf(slot: number, link: number): number {
    return (this.pageOf(slot).links[((slot & IN_PAGE) << 1) + link] as number) - 1;
  }

  setLink(slot: number, link: number, to: number): void {
    this.pageOf(slot).links[((slot & IN_PAGE) << 1) + link] = to + 1;
  }

  startTimeOf(slot: number): number {
    return this.pageOf(slot).startTimes[slot & IN_PAGE] as number;
  }

  /** The slot's `j`th value (of its layout). */
  valueAt(slot: number, j: number): U64 {
    if (this.big.size > 0) {
      const values = this.big.get(slot);
      if (values) return values[j] as U64;
    }
    const page = this.pageOf(slot);
    const row = (page.wideRow[slot & IN_PAGE] as number) - 1;
    if (row >= 0) return (this.wide[row >> PAGE_SHIFT] as Float64Array)[(row & IN_PAGE) * this.stride + j] as number;
    return page.narrow[(slot & IN_PAGE) * this.stride + j] as number;
  }

  /** Sets the slot's layout number, its `count` first values (of that layout) from `values`, and its start time. */
  store(slot: number, layout: number, values: readonly U64[], count: number, startTime: number): void {
    const page = this.pageOf(slot);
    page.layouts[slot & IN_PAGE] = layout;
    page.startTimes[slot & IN_PAGE] = startTime;
    let max = 0;
    for (let j = 0; j < count; j += 1) {
      const v = values[j];
      if (typeof v !== 'number') max = Number.POSITIVE_INFINITY;
      else if (v > max) max = v;
    }
    if (max === Number.POSITIVE_INFINITY) {
      this.big.set(slot, values.slice(0, count));
      this.narrowed(slot);
      return;
    }
    if (this.big.size > 0) this.big.delete(slot);
    if (count > this.stride) this.widen(count);
    if (max <= MAX_NARROW) {
      this.narrowed(slot);
      const at = (slot & IN_PAGE) * this.stride;
      for (let j = 0; j < count; j += 1) page.narrow[at + j] = values[j] as number;
      return;
    }
    let row = (page.wideRow[slot & IN_PAGE] as number) - 1;
    if (row < 0) {
      row = this.wideFree.pop() ?? this.wideUsed++;
      if (row >> PAGE_SHIFT >= this.wide.length) this.wide.push(new Float64Array(PAGE_SLOTS * this.stride));
      page.wideRow[slot & IN_PAGE] = row + 1;
    }
    const rows = this.wide[row >> PAGE_SHIFT] as Float64Array;
    const at = (row & IN_PAGE) * this.stride;
    for (let j = 0; j < count; j += 1) rows[at + j] = values[j] as number;
  }

  /** The slot's values are narrow (or elsewhere) from now on: its wide row, if any, is freed. */
  private narrowed(slot: number): void {
    const page = this.pageOf(slot);
    const row = (page.wideRow[slot & IN_PAGE] as number) - 1;
    if (row < 0) return;
    page.wideRow[slot & IN_PAGE] = 0;
    this.wideFree.push(row);
  }

  /** Rows of `stride` values from now on, every slot's values copied over (a longer layout: rare). */
  private widen(stride: number): void {
    const restride = <T extends Uint32Array | Float64Array>(from: T, to: T): T => {
      for (let i = 0; i < PAGE_SLOTS; i += 1) to.set(from.subarray(i * this.stride, (i + 1) * this.stride), i * stride);
      return to;
    };
    for (const page of this.pages) page.narrow = restride(page.narrow, new Uint32Array(PAGE_SLOTS * stride));
    this.wide = this.wide.map((rows) => restride(rows, new Float64Array(PAGE_SLOTS * stride)));
    this.stride = stride;
  }
}
