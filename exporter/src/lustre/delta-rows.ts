// Increments held by row number in typed pages rather than an array per row: the increments of the
// jobs that wait for a slot of their own until a density window closes (series-book.ts).
//
// Why: 100,000 waiting jobs each kept an array of increments grown as it was written (~200 bytes for
// ~8 values among ~30 fields), the group object around it and its own labels; a row of 32-bit numbers
// by field number is 4 bytes a field. A row with an increment past 2^32 − 1 (a byte sum past 4 GiB in
// one window: rare) keeps its increments aside as exact values instead. Pages of PAGE_ROWS rows; a row
// released is zeroed and taken again, and every page goes when every row is released.
import { u64Add, type U64 } from '../util/u64.js';

const PAGE_ROWS = 1024;
const PAGE_SHIFT = 10;
const IN_PAGE = PAGE_ROWS - 1;
const MAX_NARROW = 0xffffffff;

export class DeltaRows {
  private pages: Uint32Array[] = [];
  /** Fields a row: the most fields any add() brought so far. */
  private stride = 0;
  private used = 0;
  private readonly free: number[] = [];
  /** The rows with an increment past MAX_NARROW, whole: field → exact sum (their narrow row is zero). */
  private readonly aside = new Map<number, (U64 | undefined)[]>();
  /** What view() hands out, reused (as long as a row). */
  private viewed = new Uint32Array(0);

  /** A row of zeros. */
  take(): number {
    const row = this.free.pop() ?? this.used++;
    if (row >> PAGE_SHIFT >= this.pages.length) this.pages.push(new Uint32Array(PAGE_ROWS * this.stride));
    return row;
  }

  /** Lets go of a row: it is zero when taken again. */
  release(row: number): void {
    if (this.aside.size > 0) this.aside.delete(row);
    const at = (row & IN_PAGE) * this.stride;
    this.pageOf(row).fill(0, at, at + this.stride);
    this.free.push(row);
  }

  /**
   * Every row released at once, the pages let go: kept, they would hold the memory of the busiest
   * window while no job waits (a window closed every read leaves nothing waiting between reads).
   */
  releaseAll(): void {
    this.pages.length = 0;
    this.aside.clear();
    this.used = 0;
    this.free.length = 0;
  }

  /** Rows of at least `fields` fields from now on (one copy of the pages now, rather than one per new field). */
  reserve(fields: number): void {
    if (fields > this.stride) this.widen(fields);
  }

  /** Fields a row now (a view() is this long). */
  get width(): number {
    return this.stride;
  }

  /** Adds one increment to field `f` of the row (as add() with one field). */
  addField(row: number, f: number, d: U64): void {
    if (d === 0) return;
    const kept = this.aside.size > 0 ? this.aside.get(row) : undefined;
    if (kept) {
      const before = kept[f];
      kept[f] = before === undefined ? d : u64Add(before, d);
      return;
    }
    if (f >= this.stride) this.widen(f + 1);
    const page = this.pageOf(row);
    const at = (row & IN_PAGE) * this.stride;
    const sum = typeof d === 'number' ? (page[at + f] as number) + d : Number.POSITIVE_INFINITY;
    if (sum <= MAX_NARROW) {
      page[at + f] = sum;
      return;
    }
    const whole = this.deltasOf(row);
    page.fill(0, at, at + this.stride);
    const before = whole[f];
    whole[f] = before === undefined ? d : u64Add(before, d);
    this.aside.set(row, whole);
  }

  /**
   * The row's increments by field number: a copy in an array this object reuses (zeros where none), or
   * the exact values of a row kept aside. Valid until the next view() or write to these rows. A copy,
   * not a subarray of the page: a subarray is an object per call, and a scrape views every job's row
   * once or twice (100,000 jobs: ~18 MB of a changing scrape's allocations).
   */
  view(row: number): ArrayLike<U64 | undefined> {
    const kept = this.aside.size > 0 ? this.aside.get(row) : undefined;
    if (kept) return kept;
    const { stride } = this;
    if (this.viewed.length !== stride) this.viewed = new Uint32Array(stride);
    const page = this.pageOf(row);
    const at = (row & IN_PAGE) * stride;
    const viewed = this.viewed;
    for (let f = 0; f < stride; f += 1) viewed[f] = page[at + f] as number;
    return viewed;
  }

  /** Adds `deltas` (by field number; holes and zeros add nothing) to the row. */
  add(row: number, deltas: ArrayLike<U64 | undefined>): void {
    const kept = this.aside.size > 0 ? this.aside.get(row) : undefined;
    if (kept) {
      mergeDeltas(kept, deltas);
      return;
    }
    if (deltas.length > this.stride) this.widen(deltas.length);
    const page = this.pageOf(row);
    const at = (row & IN_PAGE) * this.stride;
    if (!fitsNarrow(page, at, deltas)) {
      // Past 32 bits: the whole row goes aside as exact values (its narrow row zeroed, as a free one).
      const whole = this.deltasOf(row);
      page.fill(0, at, at + this.stride);
      mergeDeltas(whole, deltas);
      this.aside.set(row, whole);
      return;
    }
    for (let f = 0; f < deltas.length; f += 1) {
      const d = deltas[f];
      if (d !== undefined && d !== 0) page[at + f] = (page[at + f] as number) + (d as number);
    }
  }

  /** Adds the row's increments into `into` (by field number, as series-book.ts mergeDeltas). */
  addInto(row: number, into: (U64 | undefined)[]): void {
    const kept = this.aside.size > 0 ? this.aside.get(row) : undefined;
    if (kept) return mergeDeltas(into, kept);
    const page = this.pageOf(row);
    const at = (row & IN_PAGE) * this.stride;
    for (let f = 0; f < this.stride; f += 1) {
      const d = page[at + f] as number;
      if (d === 0) continue;
      const before = into[f];
      into[f] = before === undefined ? d : u64Add(before, d);
    }
  }

  /** The row's increments as an array by field number (holes where none). */
  deltasOf(row: number): (U64 | undefined)[] {
    const deltas: (U64 | undefined)[] = [];
    this.addInto(row, deltas);
    return deltas;
  }

  private pageOf(row: number): Uint32Array {
    return this.pages[row >> PAGE_SHIFT] as Uint32Array;
  }

  /** Rows of `stride` fields from now on, every row copied over (a new field: rare after the first read). */
  private widen(stride: number): void {
    this.pages = this.pages.map((from) => {
      const to = new Uint32Array(PAGE_ROWS * stride);
      for (let i = 0; i < PAGE_ROWS; i += 1) to.set(from.subarray(i * this.stride, (i + 1) * this.stride), i * stride);
      return to;
    });
    this.stride = stride;
  }
}

/** Whether adding `deltas` to the narrow row at `at` keeps every field within 32 bits. */
function fitsNarrow(page: Uint32Array, at: number, deltas: ArrayLike<U64 | undefined>): boolean {
  for (let f = 0; f < deltas.length; f += 1) {
    const d = deltas[f];
    if (d === undefined || d === 0) continue;
    if (typeof d !== 'number' || (page[at + f] as number) + d > MAX_NARROW) return false;
  }
  return true;
}

/** into[f] += from[f] for every field, exactly (holes and zeros add nothing). */
export function mergeDeltas(into: (U64 | undefined)[], from: ArrayLike<U64 | undefined>): void {
  for (let f = 0; f < from.length; f += 1) {
    const d = from[f];
    if (d === undefined || d === 0) continue;
    const before = into[f];
    into[f] = before === undefined ? d : u64Add(before, d);
  }
}
