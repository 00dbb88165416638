// The slot table's policies, one by one; slot-table.property.test.ts checks the invariants over random use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idleFor, SlotTable } from './slot-table.js';

test('idle for at least the expiry: exactly the expiry counts as idle', () => {
  assert.equal(idleFor(0, 599, 600), false);
  assert.equal(idleFor(0, 600, 600), true);
});

test("'compete': freed slots go to the most active waiting keys, ties by key, whatever the arrival order", () => {
  const table = new SlotTable({ max: 3, folded: 'compete' });
  for (const key of ['a', 'b', 'c']) assert.equal(table.route(key, 1, 0), true);
  for (const [key, activity] of [
    ['z', 5],
    ['y', 5],
    ['x', 1],
    ['w', 9],
  ] as const)
    assert.equal(table.route(key, activity, 500), false);
  assert.deepEqual(table.expire(600, 600), ['a', 'b', 'c']);
  assert.deepEqual(table.fill(), ['w', 'y', 'z']);
  assert.equal(table.waitingCount, 1, 'x still waits');
  assert.deepEqual(table.expire(1099, 600), [], 'admitted members keep the time they were last active (500)');
  assert.equal(table.waitingCount, 1);
  assert.deepEqual(table.expire(1100, 600), ['w', 'y', 'z']);
  assert.equal(table.waitingCount, 0, 'x, idle 600 ms, is forgotten');
});

test("'compete' with caps: fill skips keys whose owner is at its share and takes the next", () => {
  const table = new SlotTable({ max: 3, folded: 'compete', caps: { maxPerOwner: 1, maxUnverified: 3 } });
  assert.equal(table.route('full', 0, 0), true);
  assert.equal(table.route('full2', 0, 0), true);
  assert.equal(table.route('full3', 0, 0), true);
  for (let i = 0; i < 5; i++) table.route(`flood${i}`, 100, 100, { owner: 7, verified: false });
  table.route('quiet', 1, 100, { owner: 8, verified: true });
  table.expire(600, 600);
  assert.deepEqual(table.fill(), ['flood0', 'quiet']);
  assert.equal(table.memberCount, 2, 'a slot stays free: only owner 7 still waits, at its share');
});

test("'pinned': a folded key stays folded while present even when a slot frees; gone, it is forgotten", () => {
  const table = new SlotTable({ max: 1, folded: 'pinned' });
  assert.equal(table.route('1', 0, 0), true);
  assert.equal(table.route('2', 0, 0), false);
  assert.deepEqual(table.retainOnly(new Set(['2'])), ['1']);
  assert.equal(table.route('2', 0, 0), false, 'pinned as folded');
  assert.deepEqual(table.fill(), [], 'no competition');
  assert.deepEqual(table.retainOnly(new Set(['3'])), []);
  assert.equal(table.waitingCount, 0);
  assert.equal(table.route('3', 0, 0), true);
});

test("'forget': folded keys cost no memory", () => {
  const table = new SlotTable({ max: 2, folded: 'forget' });
  for (let i = 0; i < 1000; i++) table.route(`/made/up/${i}`, 1, 0);
  assert.equal(table.memberCount, 2);
  assert.equal(table.waitingCount, 0);
  assert.equal(table.route('/made/up/1', 1, 0), true);
  assert.equal(table.route('/made/up/2', 1, 0), false);
});

test('expire keeps members the caller says must stay, idle or not', () => {
  const table = new SlotTable({ max: 2, folded: 'compete' });
  table.route('a', 1, 0);
  table.route('b', 1, 0);
  assert.deepEqual(
    table.expire(1000, 600, (key) => key !== 'a'),
    ['b'],
  );
  assert.equal(table.has('a'), true);
});

test("fillFrom: one round's candidates compete for free slots without being remembered", () => {
  const table = new SlotTable({ max: 2, folded: 'compete' });
  assert.deepEqual(
    table.fillFrom(
      [
        { key: 'b', activity: 3 },
        { key: 'c', activity: 3 },
        { key: 'a', activity: 1 },
      ],
      0,
    ),
    ['b', 'c'],
  );
  assert.equal(table.waitingCount, 0);
  assert.deepEqual(table.fillFrom([{ key: 'd', activity: 9 }], 0), [], 'full');
  assert.deepEqual(table.expire(600, 600), ['b', 'c'], 'admitted at the time given');
});
