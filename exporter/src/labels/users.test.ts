// uid → name: /etc/passwd under the root, getent for the rest (a fake getent here), caching of
// found and unknown uids, bounded time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePasswd, UserResolver } from './users.js';

function fakeGetent(dir: string, body: string): string {
  const path = join(dir, 'getent');
  writeFileSync(path, `#!/bin/sh\necho "$@" >> ${join(dir, 'calls')}\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

test('parsePasswd: first entry wins, comments and junk skipped', () => {
  const names = parsePasswd('# comment\nroot:x:0:0::/root:/bin/sh\nalice:x:5000:5000::/h:/bin/sh\nalias:x:5000:5000::/h:/bin/sh\nbroken\nnan:x:abc:0::/:/bin/sh\n');
  assert.deepEqual(
    [...names],
    [
      [0, 'root'],
      [5000, 'alice'],
    ],
  );
});

test('UserResolver: passwd first, then one getent call for the rest, unknown uids cached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-users-'));
  writeFileSync(join(dir, 'passwd'), 'alice:x:5000:5000::/h:/bin/sh\n');
  const getent = fakeGetent(dir, 'for u in "$@"; do [ "$u" = 7000 ] && echo "carol:*:7000:7000::/h:/bin/sh"; done; exit 2');
  const users = new UserResolver({ passwdPath: join(dir, 'passwd'), getent: true, getentCommand: getent });
  await users.resolve([5000, 7000, 7001], 0);
  assert.equal(users.name(5000), 'alice');
  assert.equal(users.name(7000), 'carol');
  assert.equal(users.name(7001), undefined);
  await users.resolve([5000, 7000, 7001], 1000);
  assert.equal(readFileSync(join(dir, 'calls'), 'utf8'), 'passwd 7000 7001\n', 'one batched call; nothing asked again within the TTL');
  await users.resolve([7001], 700_000);
  assert.equal(readFileSync(join(dir, 'calls'), 'utf8'), 'passwd 7000 7001\npasswd 7001\n', 'an unknown uid is asked again after the TTL');
});

test('UserResolver: a hanging getent is cut off by the deadline', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-users-'));
  const users = new UserResolver({ passwdPath: join(dir, 'missing'), getent: true, getentCommand: fakeGetent(dir, 'sleep 10'), timeoutMs: 200 });
  const started = Date.now();
  await users.resolve([9000]);
  assert.ok(Date.now() - started < 3000);
  assert.equal(users.name(9000), undefined);
});

test('UserResolver: getent off (another root than /): passwd only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'jobio-users-'));
  writeFileSync(join(dir, 'passwd'), 'bob:x:5001:5001::/h:/bin/sh\n');
  const users = new UserResolver({ passwdPath: join(dir, 'passwd'), getent: false, getentCommand: '/nonexistent' });
  await users.resolve([5001, 5002]);
  assert.equal(users.name(5001), 'bob');
  assert.equal(users.name(5002), undefined);
});
