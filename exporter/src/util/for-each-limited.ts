// Runs an async function over items with at most `limit` calls in flight, in item order per lane.
// Many small pseudo-files are read faster a few at a time (each read waits on libuv's thread pool),
// but never all at once: the pool has 4 threads shared by every collector of the scrape.

/** fn(item, lane): `lane` (0 … limit-1) is the caller's slot, e.g. to reuse one buffer per lane. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T, lane: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (id: number): Promise<void> => {
    for (let item = items[next]; next < items.length && item !== undefined; item = items[next]) {
      next += 1;
      await fn(item, id);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, (_, id) => lane(id)));
}
