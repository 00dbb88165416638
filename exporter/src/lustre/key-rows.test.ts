import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyRows } from './key-rows.js';

test('rows by key: found, visited by row number, forgotten on clear', () => {
  const rows = new KeyRows();
  const keys = Array.from({ length: 3000 }, (_, i) => `${i}\u0000user${i % 7}\u0000`);
  keys.forEach((key, row) => rows.set(key, row));
  assert.equal(rows.size, 3000);
  for (const [row, key] of keys.entries()) assert.equal(rows.get(key), row);
  assert.equal(rows.get('3000\u0000user4\u0000'), undefined);
  assert.equal(rows.has('\u0001other'), false);
  const visited: string[] = [];
  rows.forEach((row, key) => visited.push(`${row}=${key}`));
  assert.deepEqual(
    visited,
    keys.map((key, row) => `${row}=${key}`),
  );
  rows.clear();
  assert.equal(rows.size, 0);
  assert.equal(rows.get(keys[5]!), undefined);
  rows.set('b', 0);
  rows.set('a', 1);
  const after: string[] = [];
  rows.forEach((_, key) => after.push(key));
  assert.deepEqual(after, ['b', 'a'], 'after clear, only the new keys, by row');
});

test('the key at a row: the one set there, none at a row not set or after clear', () => {
  const rows = new KeyRows();
  rows.set('a\u0000u\u0000', 0);
  rows.set('c\u0000u\u0000', 2);
  assert.equal(rows.keyAt(0), 'a\u0000u\u0000');
  assert.equal(rows.keyAt(1), undefined);
  assert.equal(rows.keyAt(2), 'c\u0000u\u0000');
  assert.equal(rows.keyAt(3), undefined);
  rows.clear();
  assert.equal(rows.keyAt(0), undefined);
});

test('claim: the row of a key held, else the key takes the row given', () => {
  const rows = new KeyRows(4);
  assert.equal(rows.claim('x', 0), undefined);
  assert.equal(rows.claim('y', 1), undefined);
  assert.equal(rows.claim('x', 2), 0, 'held: its row, and row 2 stays free');
  assert.equal(rows.keyAt(2), undefined);
  for (let row = 3; row < 40; row += 1) assert.equal(rows.claim(`k${row}`, row), undefined, 'grows past the size it was made for');
  assert.equal(rows.size, 39);
  assert.equal(rows.get('y'), 1);
  assert.equal(rows.get('k39'), 39);
});
