// The field layouts of a target's entries (which fields an entry's values are, in order: export-fields.ts),
// each by a number that the entry's slot keeps (4 bytes in the slots' pages, not an 8-byte pointer by slot).
// Nearly every entry of a file has one layout; a number lives while a slot uses it, so layouts made by
// odd or cut-short reads do not pile up.

export class LayoutTable {
  private readonly list: (readonly number[] | undefined)[] = [];
  private readonly uses: number[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly free: number[] = [];

  /** The layout of number `n` (one in use). */
  get(n: number): readonly number[] {
    return this.list[n] as readonly number[];
  }

  /** Whether `n` is in use and stands for `layout` itself (the same array). */
  holds(n: number, layout: readonly number[]): boolean {
    return this.list[n] === layout;
  }

  /** The number of the layout `ids` (the array is kept when it is new), one more use of it. */
  acquire(ids: readonly number[]): number {
    const key = ids.join(',');
    let n = this.byKey.get(key);
    if (n === undefined) {
      n = this.free.pop() ?? this.list.length;
      this.list[n] = ids;
      this.uses[n] = 0;
      this.byKey.set(key, n);
    }
    this.uses[n] = (this.uses[n] as number) + 1;
    return n;
  }

  /** One more use of `n` (in use). */
  use(n: number): void {
    this.uses[n] = (this.uses[n] as number) + 1;
  }

  /** One use of `n` less: with none left, the number is free for another layout. */
  release(n: number): void {
    const left = (this.uses[n] as number) - 1;
    this.uses[n] = left;
    if (left > 0) return;
    this.byKey.delete((this.list[n] as readonly number[]).join(','));
    this.list[n] = undefined;
    this.free.push(n);
  }

  clear(): void {
    this.list.length = 0;
    this.uses.length = 0;
    this.byKey.clear();
    this.free.length = 0;
  }
}
