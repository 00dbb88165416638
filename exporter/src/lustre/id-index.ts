// A set of numbers (slots, places) found by a key they stand for, in one Int32Array: open addressing,
// linear probing. The keys stay with the caller (an id's bytes by slot, a class by number); the table
// asks it for a number's hash and whether a number has a key.
//
// Why not a Map by key: a Map entry is three 8-byte words plus its share of the buckets, ~37 bytes an
// entry at 100,000 entries, and a Map grown by doubling leaves the smaller table behind as garbage.
// This table is 4 bytes a position at a load of at most 3/4, so 6–11 bytes a number.
import { randomBytes } from 'node:crypto';

/** What the table asks of its caller about the numbers it holds. */
export interface IndexKeys<K> {
  /** The hash of the key of `value` (the one it was added with: hashKey of that key). */
  hashOf(value: number): number;
  /** Whether `value` stands for `key`. */
  matches(value: number, key: K): boolean;
}

const EMPTY = 0;
const REMOVED = -1;
const MIN_CAPACITY = 16;

/**
 * The hash's start, random per process: job ids come from users (a job name, an executable's name in
 * `%e.%u`), and with a fixed start one could pick names that all land on one probe chain, making every
 * lookup walk the whole table (a Map's string hash is seeded by V8 for the same reason).
 */
const SEED = randomBytes(4).readInt32LE(0);

/** A string's hash (FNV-1a over its UTF-16 units from a random start, then mixed so that the low bits depend on every unit). */
export function hashString(s: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < s.length; i += 1) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h);
}

/** hashString() of the text whose characters are bytes[start, end) (one character a byte, as latin1 reads them). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = start; i < end; i += 1) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return mix(h);
}

/** murmur3's finalizer: spreads every input bit over the low bits that pick a position. */
export function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

export class IdIndex<K> {
  /** value + 1 at each position; EMPTY never used, REMOVED a value removed (probing goes past it). */
  private table = new Int32Array(MIN_CAPACITY);
  private count = 0;
  private removed = 0;

  /**
   * `expected`: how many numbers the table will hold, when the caller knows (a table made for one
   * scrape's keys): it is made that large at once, so no number is hashed again by a rebuild.
   */
  constructor(
    private readonly keys: IndexKeys<K>,
    expected = 0,
  ) {
    if (expected > 0) this.table = new Int32Array(capacityFor(expected, MIN_CAPACITY));
  }

  get size(): number {
    return this.count;
  }

  /** The value standing for `key` (whose hash is `hash`), or -1. */
  find(key: K, hash: number): number {
    const { table } = this;
    const mask = table.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const v = table[at] as number;
      if (v === EMPTY) return -1;
      if (v !== REMOVED && this.keys.matches(v - 1, key)) return v - 1;
    }
  }

  /** Adds `value` (not in the table) under `hash`. */
  add(value: number, hash: number): void {
    if ((this.count + this.removed + 1) * 4 > this.table.length * 3) this.rebuild();
    this.place(value, hash);
    this.count += 1;
  }

  /** Removes `value`, added under `hash`. */
  remove(value: number, hash: number): void {
    const { table } = this;
    const mask = table.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const v = table[at] as number;
      if (v === EMPTY) return;
      if (v === value + 1) {
        // The next position empty: no probe goes past this one, so it can be empty too.
        if (table[(at + 1) & mask] === EMPTY) table[at] = EMPTY;
        else {
          table[at] = REMOVED;
          this.removed += 1;
        }
        this.count -= 1;
        return;
      }
    }
  }

  /** Empties the table, keeping its size (a window's jobs come back about as many the next window). */
  clear(): void {
    this.table.fill(EMPTY);
    this.count = 0;
    this.removed = 0;
  }

  private place(value: number, hash: number): void {
    const { table } = this;
    const mask = table.length - 1;
    let at = hash & mask;
    while (table[at] !== EMPTY && table[at] !== REMOVED) at = (at + 1) & mask;
    if (table[at] === REMOVED) this.removed -= 1;
    table[at] = value + 1;
  }

  /** A new table, twice as large if more than half full, without removed marks. */
  private rebuild(): void {
    const old = this.table;
    this.table = new Int32Array(capacityFor(this.count + 1, old.length));
    this.removed = 0;
    for (let at = 0; at < old.length; at += 1) {
      const v = old[at] as number;
      if (v !== EMPTY && v !== REMOVED) this.place(v - 1, this.keys.hashOf(v - 1));
    }
  }
}

/** The smallest table from `capacity` on, doubled, in which `count` numbers fill at most half. */
function capacityFor(count: number, capacity: number): number {
  while (count * 2 > capacity) capacity *= 2;
  return capacity;
}
