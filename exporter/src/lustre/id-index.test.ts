import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashString, IdIndex } from './id-index.js';

/** Keys by value, as a caller keeps them, and a plain Map as the reference. */
function harness(hashOf: (key: string) => number) {
  const keys: (string | undefined)[] = [];
  const index = new IdIndex<string>({ hashOf: (v) => hashOf(keys[v]!), matches: (v, key) => keys[v] === key });
  const reference = new Map<string, number>();
  const free: number[] = [];
  return {
    index,
    reference,
    add(key: string): void {
      const v = free.pop() ?? keys.length;
      keys[v] = key;
      index.add(v, hashOf(key));
      reference.set(key, v);
    },
    remove(key: string): void {
      const v = reference.get(key)!;
      index.remove(v, hashOf(key));
      keys[v] = undefined;
      free.push(v);
      reference.delete(key);
    },
    check(universe: readonly string[]): void {
      assert.equal(index.size, reference.size);
      for (const key of universe) assert.equal(index.find(key, hashOf(key)), reference.get(key) ?? -1, key);
    },
  };
}

for (const [name, hashOf] of [
  ['string hash', hashString],
  // Every key in one probe chain: removals in its middle must not cut the chain.
  ['one hash for all', () => 7],
] as const) {
  test(`IdIndex agrees with a Map through growth, removals and reuse (${name})`, () => {
    const count = name === 'string hash' ? 20_000 : 600;
    const universe = Array.from({ length: count }, (_, i) => `job${i}:${1000 + (i % 37)}:node${i % 113}`);
    const h = harness(hashOf);
    for (const key of universe) h.add(key);
    h.check(universe);
    // Remove every third key, then add them back in a different order: removed marks are reused.
    const third = universe.filter((_, i) => i % 3 === 0);
    for (const key of third) h.remove(key);
    h.check(universe);
    assert.equal(h.index.size, count - third.length);
    for (const key of third.reverse()) h.add(key);
    h.check(universe);
    // Churn: many removals and adds at the same size rebuild the table without losing a key.
    for (let round = 0; round < 5; round += 1) {
      const some = universe.filter((_, i) => i % 5 === round);
      for (const key of some) h.remove(key);
      h.check(universe);
      for (const key of some) h.add(key);
    }
    h.check(universe);
    h.index.clear();
    assert.equal(h.index.size, 0);
    assert.equal(h.index.find(universe[0]!, hashOf(universe[0]!)), -1);
  });
}

test('IdIndex made for the numbers expected never hashes a key again as it fills; one made small does', () => {
  for (const [expected, rehashes] of [
    [1000, 0],
    [0, 1524],
  ] as const) {
    const keys = Array.from({ length: 1000 }, (_, i) => `job${i}`);
    let hashed = 0;
    const index = new IdIndex<string>({ hashOf: (v) => (hashed += 1) && hashString(keys[v]!), matches: (v, key) => keys[v] === key }, expected);
    keys.forEach((key, v) => index.add(v, hashString(key)));
    assert.equal(hashed, rehashes, `expected ${expected}`);
    for (const [v, key] of keys.entries()) assert.equal(index.find(key, hashString(key)), v);
  }
});
