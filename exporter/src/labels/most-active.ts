// The order in which waiting keys get free slots: most active first, ties by key (so the choice does
// not depend on the order the keys arrived in). A binary heap handed out lazily: taking k of n costs
// O(n + k log n), so 100,000 waiting jobs competing for a few free slots are not all sorted, and a
// caller that skips candidates (per-owner caps) simply takes more.

export interface Candidate {
  readonly key: string;
  readonly activity: number;
}

function before(a: Candidate, b: Candidate): boolean {
  return a.activity > b.activity || (a.activity === b.activity && a.key < b.key);
}

/** Yields `candidates` most active first (the array itself is left as it is). */
export function* mostActiveFirst<C extends Candidate>(candidates: readonly C[]): Generator<C> {
  const heap = [...candidates];
  let size = heap.length;
  const sink = (from: number): void => {
    let i = from;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < size && before(heap[left] as C, heap[best] as C)) best = left;
      if (right < size && before(heap[right] as C, heap[best] as C)) best = right;
      if (best === i) return;
      const swap = heap[i] as C;
      heap[i] = heap[best] as C;
      heap[best] = swap;
      i = best;
    }
  };
  for (let i = (size >> 1) - 1; i >= 0; i -= 1) sink(i);
  while (size > 0) {
    const top = heap[0] as C;
    size -= 1;
    heap[0] = heap[size] as C;
    heap[size] = top;
    sink(0);
    yield top;
  }
}
