import { test } from 'node:test';
import assert from 'node:assert/strict';
import { highestCost } from './basic-auth.js';

test('unknown users are checked at the cost of the configured hashes', () => {
  const users = new Map([
    ['a', '$2y$05$hNmUPaElgNK7d7.OR57NW.tQVd70DJY8ZfLpww.0GG86QrmpWMdUi'],
    ['b', '$2b$12$hNmUPaElgNK7d7.OR57NW.tQVd70DJY8ZfLpww.0GG86QrmpWMdUi'],
  ]);
  assert.equal(highestCost(users), 12);
  assert.equal(highestCost(new Map()), 4);
});
