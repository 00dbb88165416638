import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundLabel } from './bounded-label.js';

test('boundLabel: cut to max code points, control characters replaced, unchanged values say so', () => {
  assert.deepEqual(boundLabel('run 1', 10), { value: 'run 1', changed: false });
  assert.deepEqual(boundLabel('abcdef', 3), { value: 'abc', changed: true });
  assert.deepEqual(boundLabel('a\nb\u0007', 10), { value: 'a?b?', changed: true });
  assert.deepEqual(boundLabel('ééé€', 3), { value: 'ééé', changed: true });
  // C1 controls (U+009B is a CSI to many terminals) and DEL, as well as C0.
  assert.deepEqual(boundLabel('a\u009b2Jb\u007f', 10), { value: 'a?2Jb?', changed: true });
});
