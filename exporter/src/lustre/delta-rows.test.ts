// The rows of increments keep every row's sums exact and apart through what moves them: new pages,
// wider rows (a new field), sums past 2^32 (kept aside) and bigints, rows released and taken again,
// and all released at once. Checked against a plain map of arrays summed alongside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeltaRows, mergeDeltas } from './delta-rows.js';
import type { U64 } from '../util/u64.js';
import { fixedSequence } from '../../../test/helpers/fixed-sequence.js';

/** The sums as a dense list of exact values up to `width` fields (holes and zeros alike are 0n). */
function exact(deltas: readonly (U64 | undefined)[], width: number): bigint[] {
  return Array.from({ length: width }, (_, f) => BigInt(deltas[f] ?? 0));
}

test('rows keep their own exact sums through new pages, new fields, 32-bit overflow, bigints and reuse', () => {
  const rows = new DeltaRows();
  const expected = new Map<number, (U64 | undefined)[]>();
  const next = fixedSequence(11);
  const valueOf = (): U64 | undefined => {
    const kind = next() % 32;
    if (kind === 0) return 2n ** 60n + BigInt(next());
    if (kind === 1) return 2 ** 32 - 1;
    if (kind === 2) return 2 ** 31 + next();
    if (kind < 12) return undefined;
    if (kind < 16) return 0;
    return kind < 24 ? next() : next() % 100;
  };
  let width = 3;
  let checked = 0;
  for (let round = 0; round < 6000; round += 1) {
    // Fields appear as reads go on (a longer layout): rows must widen without moving their sums.
    if (round === 1500 || round === 3000) width += 5;
    // More than a page of rows before the first widening: every row of every page is copied over.
    if (round === 1400) {
      for (let i = 0; i < 1200; i += 1) {
        const row = rows.take();
        const deltas = Array.from({ length: width }, valueOf);
        rows.add(row, deltas);
        expected.set(row, []);
        mergeDeltas(expected.get(row)!, deltas);
      }
    }
    const live = [...expected.keys()];
    const pick = next() % 16;
    if (round === 4500) {
      rows.releaseAll();
      expected.clear();
      continue;
    }
    if (live.length > 0 && pick === 0) {
      const row = live[next() % live.length]!;
      rows.release(row);
      expected.delete(row);
      continue;
    }
    let row: number;
    if (live.length === 0 || pick < 5) {
      row = rows.take();
      assert.equal(expected.has(row), false, 'a row in use is not handed out again');
      expected.set(row, []);
    } else {
      row = live[next() % live.length]!;
    }
    const deltas = Array.from({ length: 1 + (next() % width) }, valueOf);
    rows.add(row, deltas);
    mergeDeltas(expected.get(row)!, deltas);
    // Every row, not only the one written: a write into the wrong row shows in another.
    if (round % 197 === 0 || round === 1501 || round > 5950) {
      for (const [r, sums] of expected) {
        assert.deepEqual(exact(rows.deltasOf(r), width), exact(sums, width), `row ${r} after round ${round}`);
        checked += 1;
      }
    }
  }
  assert.ok(checked > 1000, `rows checked: ${checked}`);
});

test('addInto adds a row to what is there, exactly, and leaves the row as it was', () => {
  const rows = new DeltaRows();
  const a = rows.take();
  const b = rows.take();
  rows.add(a, [1, undefined, 2 ** 32 - 2]);
  rows.add(b, [undefined, 7]);
  rows.add(a, [0, 3, 1]);
  // b passes 32 bits in its second field: kept aside, still its own.
  rows.add(b, [5, 2 ** 32]);
  const into: (U64 | undefined)[] = [10, undefined, Number.MAX_SAFE_INTEGER];
  rows.addInto(a, into);
  assert.deepEqual(into, [11, 3, 2n ** 53n - 1n + 2n ** 32n - 1n]);
  assert.deepEqual(rows.deltasOf(a), [1, 3, 2 ** 32 - 1]);
  assert.deepEqual(rows.deltasOf(b), [5, 2 ** 32 + 7]);
  rows.release(b);
  assert.deepEqual(rows.deltasOf(rows.take()), [], 'a row taken again starts at zero');
});

test('one field at a time (addField), read through view() and added row to row: the same exact sums', () => {
  const rows = new DeltaRows();
  const expected = new Map<number, (U64 | undefined)[]>();
  const next = fixedSequence(7);
  // More than a page of rows; fields appear one by one (rows widen while full pages exist).
  for (let r = 0; r < 1500; r += 1) expected.set(rows.take(), []);
  for (let round = 0; round < 40_000; round += 1) {
    const row = next() % 1500;
    const field = round < 20_000 ? next() % 4 : next() % 9;
    const kind = next() % 64;
    const d: U64 = kind === 0 ? 2n ** 61n + BigInt(next()) : kind < 12 ? 2 ** 31 + next() : kind < 8 ? 0 : next() % 1000;
    rows.addField(row, field, d);
    mergeDeltas(expected.get(row)!, Object.assign([], { [field]: d }));
  }
  // Half of the rows added into the other half, through view().
  for (let r = 0; r < 750; r += 1) {
    rows.add(r, rows.view(r + 750));
    mergeDeltas(expected.get(r)!, expected.get(r + 750)!);
  }
  let aside = 0;
  for (const [row, sums] of expected) {
    const view = rows.view(row);
    if (!(view instanceof Uint32Array)) aside += 1;
    assert.equal(view.length >= sums.length, true, `row ${row} as wide as its fields`);
    assert.deepEqual(exact(Array.from(view), 9), exact(sums, 9), `row ${row}`);
  }
  // Both kinds of rows were checked: narrow ones and ones past 32 bits.
  assert.ok(aside > 100 && aside < 1400, `rows aside: ${aside}`);
});
