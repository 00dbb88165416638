import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Wakeup } from './run-wakeup.js';

test('a wait ends at the next signal, or at its timeout when no signal comes; a signal with no wait is a no-op', async () => {
  const w = new Wakeup();
  w.signal();
  let ended = false;
  const wait = w.next(60_000).then(() => (ended = true));
  await Promise.resolve();
  assert.equal(ended, false);
  w.signal();
  await new Promise((r) => setImmediate(r)); // not the 60 s timeout: the signal ended the wait
  assert.equal(ended, true);
  await wait;
  // no signal: the (short) timeout ends it
  await w.next(1);
});
