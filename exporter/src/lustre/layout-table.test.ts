import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LayoutTable } from './layout-table.js';

test('a layout keeps one number while used; its number is freed with its last use and taken by another layout', () => {
  const table = new LayoutTable();
  const a = table.acquire([0, 1, 2]);
  assert.equal(table.acquire([0, 1, 2]), a, 'the same fields: the same number');
  const b = table.acquire([0, 2]);
  assert.notEqual(b, a);
  table.use(b);
  assert.deepEqual(table.get(b), [0, 2]);
  table.release(a);
  assert.deepEqual(table.get(a), [0, 1, 2], 'one use left');
  table.release(a);
  assert.equal(table.holds(a, [0, 1, 2]), false, 'no use left: forgotten');
  const c = table.acquire([3]);
  assert.equal(c, a, 'a freed number is taken again');
  assert.deepEqual(table.get(c), [3]);
  table.release(b);
  assert.deepEqual(table.get(b), [0, 2], 'b had two uses');
  table.release(b);
  assert.notEqual(table.acquire([0, 2]), c, 'made again: a number not in use');
});
