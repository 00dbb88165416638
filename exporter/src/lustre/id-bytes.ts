// The ids of a target's entries as bytes in one shared buffer, by slot: where a slot's id starts in the
// buffer and how long it is, in pages of typed arrays.
//
// Why not a string by slot: a one-byte string of a ~25-byte id is ~48 bytes of heap plus the 8-byte
// pointer to it, and one more object for every collection to trace; here the same id is its bytes
// plus 6. The scanner hands an entry's id as a range of the bytes it read (job_stats ids are printed
// as bytes, escapes kept), so an id is compared and hashed in place and a string is never needed.
//
// A slot let go leaves its bytes behind; when the buffer is full, the live ids are copied into a fresh
// one (see makeRoom()).
import { hashBytes } from './id-index.js';

const PAGE_SLOTS = 1024;
const PAGE_SHIFT = 10;
const IN_PAGE = PAGE_SLOTS - 1;
/** A length that does not fit the page's 16 bits: the real one is in `long` (ids are ~10–130 bytes). */
const LONG = 0xffff;
const MIN_BYTES = 4096;

interface Page {
  /** Where the slot's id starts in `bytes`, + 1 (0: the slot holds no id). */
  readonly at: Int32Array;
  readonly length: Uint16Array;
}

export class IdBytes {
  private bytes = new Uint8Array(MIN_BYTES);
  /** Bytes written so far (the live ones and those let go). */
  private used = 0;
  /** Of `used`, the bytes of ids let go. */
  private loose = 0;
  private readonly pages: Page[] = [];
  private readonly long = new Map<number, number>();

  /** Stores `slot`'s id: src[start, end). The slot holds no id. */
  set(slot: number, src: Uint8Array, start: number, end: number): void {
    const length = end - start;
    if (this.used + length > this.bytes.length) this.makeRoom(length);
    // Byte by byte: ids are short, and a subarray() to set() from is an object per new entry.
    const { bytes, used } = this;
    for (let i = 0; i < length; i += 1) bytes[used + i] = src[start + i] as number;
    while (slot >> PAGE_SHIFT >= this.pages.length) this.pages.push({ at: new Int32Array(PAGE_SLOTS), length: new Uint16Array(PAGE_SLOTS) });
    const page = this.pages[slot >> PAGE_SHIFT] as Page;
    page.at[slot & IN_PAGE] = this.used + 1;
    page.length[slot & IN_PAGE] = Math.min(length, LONG);
    if (length >= LONG) this.long.set(slot, length);
    this.used += length;
  }

  /** Forgets `slot`'s id. */
  release(slot: number): void {
    const page = this.pages[slot >> PAGE_SHIFT] as Page;
    this.loose += this.lengthOf(slot);
    page.at[slot & IN_PAGE] = 0;
    if (this.long.size > 0) this.long.delete(slot);
  }

  /** Forgets every id and lets the buffer go. */
  clear(): void {
    this.bytes = new Uint8Array(MIN_BYTES);
    this.used = 0;
    this.loose = 0;
    this.pages.length = 0;
    this.long.clear();
  }

  /** Whether `slot` holds an id and it is src[start, end). */
  matches(slot: number, src: Uint8Array, start: number, end: number): boolean {
    const page = this.pages[slot >> PAGE_SHIFT];
    if (page === undefined) return false;
    const at = (page.at[slot & IN_PAGE] as number) - 1;
    if (at < 0 || this.lengthOf(slot) !== end - start) return false;
    const { bytes } = this;
    for (let i = start, j = at; i < end; i += 1, j += 1) if (src[i] !== bytes[j]) return false;
    return true;
  }

  /** The hash of `slot`'s id (hashBytes of its bytes). */
  hashOf(slot: number): number {
    const at = ((this.pages[slot >> PAGE_SHIFT] as Page).at[slot & IN_PAGE] as number) - 1;
    return hashBytes(this.bytes, at, at + this.lengthOf(slot));
  }

  private lengthOf(slot: number): number {
    const length = (this.pages[slot >> PAGE_SHIFT] as Page).length[slot & IN_PAGE] as number;
    return length === LONG ? (this.long.get(slot) as number) : length;
  }

  /**
   * Room for `length` more bytes: the live ids copied into a new buffer, the same size when that leaves
   * an eighth of it free, else a quarter larger than they need (a buffer doubled would be half empty
   * on average: ~12 bytes an entry at 100,000). Each compaction copies at most 7/8 of the buffer for at
   * least an eighth added, so ids are copied a bounded number of times per byte added.
   */
  private makeRoom(length: number): void {
    const need = this.used - this.loose + length;
    const old = this.bytes;
    const size = need * 8 <= old.length * 7 && need * 4 >= old.length ? old.length : Math.max(MIN_BYTES, Math.ceil(need * 1.25));
    const bytes = new Uint8Array(size);
    if (this.loose === 0) {
      // Nothing let go: the ids keep their places, copied at once.
      bytes.set(old.subarray(0, this.used));
      this.bytes = bytes;
      return;
    }
    let used = 0;
    for (let p = 0; p < this.pages.length; p += 1) {
      const page = this.pages[p] as Page;
      for (let i = 0; i < PAGE_SLOTS; i += 1) {
        const at = (page.at[i] as number) - 1;
        if (at < 0) continue;
        const n = this.lengthOf((p << PAGE_SHIFT) | i);
        for (let j = 0; j < n; j += 1) bytes[used + j] = old[at + j] as number;
        page.at[i] = used + 1;
        used += n;
      }
    }
    this.bytes = bytes;
    this.used = used;
    this.loose = 0;
  }
}
