import { test } from 'node:test';
import assert from 'node:assert/strict';
import bcrypt from 'bcryptjs';
import { PasswordChecker } from './password-checker.js';

const HASH = bcrypt.hashSync('s3cret', 4);

test('checks passwords in worker threads', async () => {
  const checker = new PasswordChecker(2, 8);
  try {
    assert.deepEqual(await Promise.all([checker.check('s3cret', HASH, 'a'), checker.check('wrong', HASH, 'b'), checker.check('s3cret', 'not a hash', 'c')]), [true, false, false]);
    assert.equal(checker.pending, 0);
  } finally {
    await checker.close();
  }
});

test('beyond maxPending checks, attempts are answered busy without being queued', async () => {
  const checker = new PasswordChecker(1, 3);
  try {
    const results = await Promise.all(Array.from({ length: 7 }, (_, i) => checker.check('wrong', HASH, `10.0.0.${i}`)));
    assert.deepEqual(results, [false, false, false, 'busy', 'busy', 'busy', 'busy']);
    // Once the queue drains, checks are accepted again.
    assert.equal(await checker.check('s3cret', HASH), true);
  } finally {
    await checker.close();
  }
});

test('one peer holds at most a quarter of the queue: its further attempts are busy, another peer still gets in', async () => {
  const checker = new PasswordChecker(1, 8);
  try {
    const flood = Array.from({ length: 5 }, () => checker.check('wrong', HASH, '10.0.0.66'));
    const scraper = checker.check('s3cret', HASH, '10.0.0.1');
    assert.deepEqual(await Promise.all(flood), [false, false, 'busy', 'busy', 'busy']);
    assert.equal(await scraper, true);
    assert.equal(checker.pending, 0);
  } finally {
    await checker.close();
  }
});

test('waiting checks are taken round-robin over peers: a scraper arriving behind a flood waits for one of its checks, not all', async () => {
  const checker = new PasswordChecker(1, 32);
  try {
    const done: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) => checker.check('wrong', HASH, '10.0.0.66').then((r) => void done.push(`flood${i}:${String(r)}`)));
    const scraper = checker.check('s3cret', HASH, '10.0.0.1').then((r) => void done.push(`scraper:${String(r)}`));
    await Promise.all([...flood, scraper]);
    // flood0 was running when the scraper came; flood1 was next in the round; then the scraper's turn.
    assert.deepEqual(done.slice(0, 4), ['flood0:false', 'flood1:false', 'scraper:true', 'flood2:false']);
    assert.equal(done.length, 9);
  } finally {
    await checker.close();
  }
});
