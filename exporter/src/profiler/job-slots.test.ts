import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JobSlots, OTHER } from './job-slots.js';

test('at most max jobs own series; others fold into _other; slots are sticky and go to the busiest when freed', () => {
  const slots = new JobSlots(2);
  assert.equal(slots.route('a', 1, 0), 'a');
  assert.equal(slots.route('b', 1, 0), 'b');
  assert.equal(slots.route('c', 5, 0), OTHER);
  assert.equal(slots.route('d', 50, 0), OTHER);
  assert.equal(slots.route('a', 1, 500), 'a', 'sticky');
  assert.deepEqual(slots.maintain(1000, 600), ['b'], 'b idle past the expiry');
  assert.equal(slots.route('d', 1, 1000), 'd', 'the busiest waiting job got the free slot');
  assert.equal(slots.route('c', 1, 1000), OTHER);
  assert.equal(slots.ownCount, 2);
  assert.equal(slots.waitingCount, 1);
});
