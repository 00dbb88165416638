// The slabs of per-entry state keep every slot's values exact through what moves them: new pages,
// rows widened by a longer layout, values past 2^32 (64-bit rows) or 2^53 (kept aside as bigints)
// and back, slots freed and taken again. Checked against a plain map of arrays written alongside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EntrySlots } from './entry-slots.js';
import type { U64 } from '../util/u64.js';
import { fixedSequence } from '../../../test/helpers/fixed-sequence.js';

test('slots keep their values, start times, class and layout numbers through growth, wider rows, bigints and reuse', () => {
  const slots = new EntrySlots();
  const expected = new Map<number, { values: U64[]; start: number; cls: number; layout: number }>();
  const layouts = [
    [0, 1, 2],
    [0, 1, 2, 3, 4, 5, 6],
  ] as const;
  const next = fixedSequence(7);
  // Narrow (below 2^32), wide (up to 2^53, 2^32 − 1 and 2^32 at the edge) and bigint values.
  const edges = [0, 2 ** 32 - 1, 2 ** 32, Number.MAX_SAFE_INTEGER];
  const valueOf = (): U64 => {
    const kind = next() % 16;
    if (kind === 0) return 2n ** 60n + BigInt(next());
    if (kind < 3) return Number.MAX_SAFE_INTEGER - next();
    if (kind < 5) return edges[next() % edges.length]!;
    return kind < 7 ? next() : next() % 1000;
  };
  for (let round = 0; round < 2000; round += 1) {
    const live = [...expected.keys()];
    if (live.length > 0 && next() % 4 === 0) {
      const slot = live[next() % live.length]!;
      slots.release(slot);
      expected.delete(slot);
      continue;
    }
    const layoutNumber = round < 600 ? 0 : next() % 2;
    const values = layouts[layoutNumber]!.map(valueOf);
    const start = next() % 3 === 0 ? Number.NaN : next();
    if (live.length > 0 && next() % 2 === 0) {
      const slot = live[next() % live.length]!;
      slots.store(slot, layoutNumber, values, values.length, start);
      Object.assign(expected.get(slot)!, { values, start, layout: layoutNumber });
    } else {
      const cls = round;
      const slot = slots.take(cls);
      assert.equal(expected.has(slot), false, 'a slot in use is not handed out again');
      slots.store(slot, layoutNumber, values, values.length, start);
      expected.set(slot, { values, start, cls, layout: layoutNumber });
    }
    for (const [slot, e] of expected) {
      assert.equal(slots.classOf(slot), e.cls);
      assert.equal(slots.layoutOf(slot), e.layout);
      assert.ok(Object.is(slots.startTimeOf(slot), e.start));
      for (let j = 0; j < e.values.length; j += 1) assert.equal(slots.valueAt(slot, j), e.values[j], `slot ${slot} value ${j}`);
    }
  }
  assert.ok(expected.size > 100, `${expected.size} slots live at the end`);
});

test('seen marks are per slot; markAllSeen marks every slot in use', () => {
  const slots = new EntrySlots();
  const a = slots.take(0);
  const b = slots.take(0);
  slots.markSeen(a, 3);
  slots.markSeen(b, 2);
  assert.deepEqual([slots.seenAt(a), slots.seenAt(b)], [3, 2]);
  slots.markAllSeen(4);
  assert.deepEqual([slots.seenAt(a), slots.seenAt(b)], [4, 4]);
  slots.clear();
  assert.equal(slots.take(0), 0, 'cleared: slots start again from 0');
});
