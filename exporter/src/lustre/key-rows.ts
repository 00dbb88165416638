// Row numbers by key string, for the jobs that wait for a series of their own (series-book.ts): the keys
// in an array by row, found through an open-addressing table of rows (id-index.ts).
//
// Why not a Map by key: with 100,000 jobs waiting while a density window is open, a Map entry was ~37
// bytes a job (and the smaller table left as garbage at each doubling); here 8 bytes for the key by row
// and 6–11 for its place in the table.
import { hashString, IdIndex } from './id-index.js';

export class KeyRows {
  private readonly keys: (string | undefined)[] = [];
  private readonly index: IdIndex<string>;

  /** `expected`: how many keys it will hold, when known (IdIndex). */
  constructor(expected = 0) {
    this.index = new IdIndex<string>(
      {
        hashOf: (row) => hashString(this.keys[row] as string),
        matches: (row, key) => this.keys[row] === key,
      },
      expected,
    );
  }

  get size(): number {
    return this.index.size;
  }

  /** The row of `key`, or undefined. */
  get(key: string): number | undefined {
    const row = this.index.find(key, hashString(key));
    return row < 0 ? undefined : row;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  /** The key held at `row`, or undefined. */
  keyAt(row: number): string | undefined {
    return this.keys[row];
  }

  /** The row of `key` if held; if not, `key` is at `row` (not taken) from now on, and undefined (one hash, not two). */
  claim(key: string, row: number): number | undefined {
    const hash = hashString(key);
    const held = this.index.find(key, hash);
    if (held >= 0) return held;
    this.keys[row] = key;
    this.index.add(row, hash);
    return undefined;
  }

  /** `key` (not held) is at `row` (not taken). */
  set(key: string, row: number): void {
    this.keys[row] = key;
    this.index.add(row, hashString(key));
  }

  /** Calls `visit` with each key held and its row, by row number. */
  forEach(visit: (row: number, key: string) => void): void {
    const { keys } = this;
    for (let row = 0; row < keys.length; row += 1) {
      const key = keys[row];
      if (key !== undefined) visit(row, key);
    }
  }

  clear(): void {
    this.keys.length = 0;
    this.index.clear();
  }
}
