import { test } from 'node:test';
import assert from 'node:assert/strict';
import bcrypt from 'bcryptjs';
import { PasswordChecker } from './password-checker.js';

const HASH = bcrypt.hashSync('s3cret', 4);

test('checks passwords in worker threads', async () => {
  const checker = new PasswordChecker(2, 8);
  try {
    assert.deepEqual(await Promise.all([checker.check('s3cret', HASH), checker.check('wrong', HASH), checker.check('s3cret', 'not a hash')]), [true, false, false]);
    assert.equal(checker.pending, 0);
  } finally {
    await checker.close();
  }
});

test('beyond maxPending checks, attempts are answered busy without being queued', async () => {
  const checker = new PasswordChecker(1, 3);
  try {
    const results = await Promise.all(Array.from({ length: 7 }, () => checker.check('wrong', HASH)));
    assert.deepEqual(results, [false, false, false, 'busy', 'busy', 'busy', 'busy']);
    // Once the queue drains, checks are accepted again.
    assert.equal(await checker.check('s3cret', HASH), true);
  } finally {
    await checker.close();
  }
});
